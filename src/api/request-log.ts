import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export type RequestLogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/**
 * One line per request, written when it is answered, at the level chosen (Fastify's own logging
 * writes two at info: one on arrival, one on completion). A failed answer is logged by the error
 * handler, with its cause.
 */
export class RequestLog extends LogController {
  constructor(private readonly level: RequestLogLevel) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    if (error) reply.log.error(Object.assign(line, { err: error }), 'request failed while answering');
    else if (this.level !== 'silent') reply.log[this.level](line, 'request');
  }

  /** A request answered before it was routed (early-answers.ts): the same line, on the server's logger (it has no request id). */
  answeredEarly(log: FastifyBaseLogger, method: string, url: string, responseTime: number): void {
    if (this.level !== 'silent') log[this.level]({ method, url, statusCode: 200, responseTime }, 'request');
  }
}
