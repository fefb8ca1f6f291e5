import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseFailure } from '../errors.js';
import { noSniff } from './http-hygiene.js';

/**
 * The API's error answers, in one place:
 *  422 {"errors":[{"title":"Invalid value","source":{"pointer":"/<param>"},"detail":"..."}]}, one per bad parameter;
 *  404 {"message":"Not found"} (plus details such as the hash of a block that lost consensus);
 *  503 {"message":"..."} with Retry-After when the database cannot be reached or answer in time, or the
 *  process is overloaded; never a stack trace.
 */

export interface InvalidParameter {
  /** The parameter's name as the client sends it (path parameters keep the spec's names). */
  param: string;
  /** What was expected, and what came instead. */
  detail: string;
}

export class InvalidParametersError extends Error {
  override name = 'InvalidParametersError';

  constructor(readonly invalid: InvalidParameter[]) {
    super(invalid.map(({ param, detail }) => `${param}: ${detail}`).join('; '));
  }
}

export interface NotFoundBody {
  message: string;
  [detail: string]: string;
}

export class NotFoundError extends Error {
  override name = 'NotFoundError';

  constructor(readonly body: NotFoundBody = { message: 'Not found' }) {
    super(body.message);
  }
}

const shownValueLength = 80;

/** The detail of a 422: what was expected, and the value received (shortened). */
export function invalidValueDetail(expected: string, received: unknown): string {
  if (received === undefined) return `Expected ${expected}.`;
  const shown = typeof received === 'string' ? received : JSON.stringify(received);
  const clipped = shown.length > shownValueLength ? `${shown.slice(0, shownValueLength)}…` : shown;
  return `Expected ${expected}; got "${clipped}".`;
}

/** Parameters found malformed before the schema validated the request (see strict-input.ts). */
const notedInvalid = new WeakMap<FastifyRequest, InvalidParameter[]>();

export function noteInvalidParameters(request: FastifyRequest, invalid: InvalidParameter[]): void {
  notedInvalid.set(request, invalid);
}

export const notedInvalidParameters = (request: FastifyRequest): InvalidParameter[] | undefined => notedInvalid.get(request);

/** The schema's failures, then the noted ones of the other parameters: one entry per parameter. */
function mergedInvalidParameters(validation: InvalidParameter[], noted: InvalidParameter[]): InvalidParameter[] {
  const named = new Set(validation.map(({ param }) => param));
  return [...validation, ...noted.filter(({ param }) => !named.has(param))];
}

function invalidParametersBody(invalid: InvalidParameter[]) {
  return {
    errors: invalid.map(({ param, detail }) => ({ title: 'Invalid value', source: { pointer: `/${param}` }, detail })),
  };
}

type RequestPart = 'params' | 'querystring' | 'body' | 'headers';

interface DescribedObjectSchema {
  properties?: Record<string, { description?: string } | undefined>;
}

/** Turns Fastify's schema-validation failure into one entry per parameter, worded from the schema's descriptions. */
function invalidParametersFromValidation(error: FastifyError, request: FastifyRequest): InvalidParameter[] {
  const part: RequestPart = error.validationContext ?? 'querystring';
  const schema = request.routeOptions.schema?.[part] as DescribedObjectSchema | undefined;
  const values = (part === 'params' ? request.params : part === 'querystring' ? request.query : {}) as Record<string, unknown> | undefined;
  const byParam = new Map<string, string>();
  for (const failure of error.validation ?? []) {
    const missing = failure.params['missingProperty'];
    const param = typeof missing === 'string' ? missing : failure.instancePath.split('/')[1] || part;
    if (byParam.has(param)) continue;
    const expected = schema?.properties?.[param]?.description ?? `a value that ${failure.message ?? 'is valid'}`;
    byParam.set(param, invalidValueDetail(expected, values?.[param]));
  }
  return [...byParam].map(([param, detail]) => ({ param, detail }));
}

/**
 * Besides the failures that pass (see isDatabaseFailure), what the API answers 503 for: a query
 * cancelled (a statement timeout), the database missing, its authentication failing, the pool ended.
 */
const unavailableCodes = new Set(['57014', '3D000', '28000', '28P01']);
const poolEnded = /Cannot use a pool after calling end/i;

/** Whether the error says the database could not be reached or could not answer (as opposed to a bug). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isDatabaseFailure(error)) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if ((typeof code === 'string' && unavailableCodes.has(code)) || poolEnded.test(error.message)) return true;
  return error instanceof AggregateError && error.errors.some(isDatabaseUnavailable);
}

/** Seconds a client is told to wait before it tries again after a 503. */
const retryAfterSeconds = 1;

/** A 503, which says when to try again: the database cannot answer, or the process is overloaded. */
export function sendUnavailable(reply: FastifyReply, message: string, retryAfter = retryAfterSeconds): FastifyReply {
  return reply.code(503).header('retry-after', String(retryAfter)).send({ message });
}

/** While the database is down every request fails alike: one warning (with the cause) per this long, with how many it stands for. */
const unavailableWarningIntervalMs = 10_000;

/** Logs the first of a run of database failures, and then one per interval, counting the ones between. */
function unavailableWarner(): (request: FastifyRequest, error: unknown) => void {
  let lastWarnedAt = -Infinity;
  let unwarned = 0;
  return (request, error) => {
    const now = Date.now();
    if (now - lastWarnedAt < unavailableWarningIntervalMs) {
      unwarned++;
      return;
    }
    request.log.warn({ err: error, failedRequestsSinceLastWarning: unwarned }, 'database unavailable: answering 503');
    lastWarnedAt = now;
    unwarned = 0;
  };
}

function sendError(
  reply: FastifyReply,
  error: FastifyError,
  request: FastifyRequest,
  warnUnavailable: (request: FastifyRequest, error: unknown) => void,
): FastifyReply {
  if (error.validation) {
    const invalid = mergedInvalidParameters(invalidParametersFromValidation(error, request), notedInvalidParameters(request) ?? []);
    return reply.code(422).send(invalidParametersBody(invalid));
  }
  if (error instanceof InvalidParametersError) return reply.code(422).send(invalidParametersBody(error.invalid));
  if (error instanceof NotFoundError) return reply.code(404).send(error.body);
  if (isDatabaseUnavailable(error)) {
    warnUnavailable(request, error);
    return sendUnavailable(reply, 'The database is unavailable; try again shortly.');
  }
  const status = error.statusCode ?? 500;
  if (status === 503) return sendUnavailable(reply, error.message);
  if (status >= 400 && status < 500) return reply.code(status).send({ message: error.message });
  request.log.error({ err: error }, 'request failed');
  return reply.code(500).send({ message: 'Internal server error' });
}

/** Routes every failure, and every unknown route, to the answers above. */
export function registerErrorHandling(app: FastifyInstance): void {
  const warnUnavailable = unavailableWarner();
  app.setErrorHandler((error: FastifyError, request, reply) => sendError(reply, error, request, warnUnavailable));
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: 'Not found' }));
}

/** For Fastify's `frameworkErrors`: a URL the router cannot decode is the client's mistake. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void reply
    .code(400)
    .header('cache-control', 'public, max-age=3600')
    // Sent before the hooks that add it to every other answer.
    .header(noSniff.name, noSniff.value)
    .send({ message: `Malformed URL (${error.message}); check its percent-encoding.` });
}
