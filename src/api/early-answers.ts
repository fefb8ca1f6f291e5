import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { hasBody } from './http-hygiene.js';
import type { SharedAnswers } from './shared-answers.js';

export interface EarlyAnswerOptions {
  /** Whether answers may be sent early now: not while a guard that refuses requests by state (a bulk load) may refuse them. */
  allowed: () => boolean;
  /** Told of each answer sent early, with the route's template and the seconds it took, to count and log it as a routed one. */
  answered: (request: IncomingMessage, route: string, seconds: number) => void;
}

/** A GET that no hook before the route would refuse or answer otherwise: no body, a Host, no If-None-Match (a 304's business). */
const plain = (request: IncomingMessage): boolean =>
  request.method === 'GET' &&
  request.headers.host !== undefined &&
  request.headers['if-none-match'] === undefined &&
  !hasBody(request.headers);

/**
 * Sends a kept shared answer as soon as Node has parsed the request, before Fastify routes it: the home
 * page's answers, asked thousands of times between two blocks, then cost their socket write and little
 * else (Fastify's request and reply, its hooks and the plugins' would cost them three times more).
 * Only a request whose URL and shape a routed request was already answered for with the same kept
 * answer is answered so, and with that request's headers, so that every hook that sets a header (CORS,
 * caching, compression, the route's own) has had its say (shared-answers.ts, `early`). The hooks that
 * count or refuse requests do not run: not to be used with a rate limit, and the load shedding has no
 * cheaper answer to give than a kept one.
 */
export function answerSharedEarly(app: FastifyInstance, shared: SharedAnswers, options: EarlyAnswerOptions): void {
  const server = app.server;
  const listeners = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  const routed = listeners[0];
  if (routed === undefined || listeners.length !== 1) throw new Error(`expected Fastify's one request listener, found ${listeners.length}`);
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    const answer = plain(request) && options.allowed() ? shared.early(request) : null;
    if (answer === null) return routed.call(server, request, response);
    response.writeHead(200, answer.headers as OutgoingHttpHeaders);
    response.end(answer.body);
    options.answered(request, answer.route, (performance.now() - started) / 1000);
  });
}
