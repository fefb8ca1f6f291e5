/**
 * Every failure is retryable or fatal. A retryable one may pass by itself, and the work that failed
 * is tried again after a while: the node timed out, was overloaded (HTTP 429, 5xx), refused or
 * dropped the connection, answered garbage, or changed its chain while answering; the database lost
 * or refused its connection, was restarting or short of resources, or gave up a transaction that
 * can run again (a serialization failure, a deadlock). Every other error is fatal, unknown ones
 * included: retrying mends neither a programming error nor a wrong setting, it only hides them.
 */

/** A problem with the configuration or the environment, told to the user as one line with the fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** An error that says whether trying the same work again later may succeed. */
interface Retryability {
  readonly retryable: boolean;
}

/** A failure that may pass: the same work, tried again later, may succeed. */
export class RetryableError extends Error implements Retryability {
  readonly retryable = true;
}

/** Socket errors of a connection that could not be made or broke. */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** What pg says when the server closed the connection, or did not open one in time. */
const CONNECTION_LOST =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|^timeout expired$/i;

/**
 * SQLSTATE classes that pass: 40 transaction rollback (serialization failure, deadlock),
 * 08 connection exception, 53 insufficient resources, 57P0x the server shutting down or starting up.
 */
const PASSING_SQLSTATE = /^(40|08|53|57P0)/;

/** Whether the error is the database's and may pass: its connection failed, or it gave up work that can run again. */
export function isDatabaseFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || PASSING_SQLSTATE.test(code))) return true;
  if (CONNECTION_LOST.test(error.message)) return true;
  return error instanceof AggregateError && error.errors.some(isDatabaseFailure);
}

/** Whose a retryable failure is: the database's (see isDatabaseFailure), else the node's. */
export type FailureSource = 'node' | 'database';

export const failureSource = (error: unknown): FailureSource => (isDatabaseFailure(error) ? 'database' : 'node');

/**
 * Whether trying the same work again later may succeed: a RetryableError, an error that says so
 * itself (a node's JSON-RPC refusal, see RpcError), or a database failure that passes. Anything else is fatal.
 */
export function isRetryable(error: unknown): boolean {
  return (error instanceof Error && (error as Partial<Retryability>).retryable === true) || isDatabaseFailure(error);
}

const REDACTED = '***';

/**
 * The secrets a connection URL holds, whatever its shape (valid or not, with or without a scheme):
 * the password of its user information (everything between the first `:` after the scheme's `//`
 * and the last `@`) and the value of every `password`-like query or keyword parameter
 * (`?password=`, `sslpassword=`, `password=` of a libpq keyword string), as written, percent-decoded and
 * -encoded, and escaped as in a JSON log line.
 */
export function urlSecrets(url: string): string[] {
  const secrets: string[] = [];
  const at = url.lastIndexOf('@');
  if (at > 0) {
    const slashes = url.indexOf('//');
    const start = slashes >= 0 && slashes < at ? slashes + 2 : 0;
    const colon = url.indexOf(':', start);
    if (colon >= 0 && colon < at) secrets.push(url.slice(colon + 1, at));
  }
  for (const [, key, value] of url.matchAll(/(?:^|[\s?&;])([^\s?&;=]*)=([^\s&;#]*)/g)) {
    if (/pass/i.test(decoded(key!))) secrets.push(value!);
  }
  return secrets
    .flatMap((secret) => [secret, decoded(secret), encodeURIComponent(secret)])
    .flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)])
    .filter((secret) => secret !== '');
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `text` with every occurrence of each secret replaced by `***`: the one redaction of everything
 * Sextant prints (log lines, error lines, answers), longest secrets first so that none leaves a part of another.
 */
export function redact(text: string, secrets: readonly string[]): string {
  return [...secrets].sort((a, b) => b.length - a.length).reduce((result, secret) => result.replaceAll(secret, REDACTED), text);
}

/** A URL as it may be shown: its passwords replaced by `***`. */
export const redactUrl = (url: string): string => redact(url, urlSecrets(url));
