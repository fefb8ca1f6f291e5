import { HttpRequestError, RpcRequestError, TimeoutError, withRetry } from 'viem';
import { getHttpRpcClient } from 'viem/utils';
import { ConfigError } from '../errors.js';
import type { NodeErrorKind, NodeRequestErrors } from '../model.js';
import { NodeUnavailableError, RpcError } from './errors.js';

export interface RpcCall {
  method: string;
  params: unknown[];
}

export interface RpcClient {
  readonly url: string;
  /** One call in its own HTTP request. */
  request<T>(method: string, params: unknown[]): Promise<T>;
  /**
   * Many calls, one HTTP batch per `batchSize` of them, answers in call order. Rejects with the
   * RpcError of the first call the node refused.
   */
  batch<T>(calls: readonly RpcCall[]): Promise<T[]>;
  /** As batch, but each call settles on its own: its result, or the RpcError the node refused it with. */
  batchSettled<T>(calls: readonly RpcCall[]): Promise<(T | RpcError)[]>;
}

export interface RpcClientOptions {
  url: string;
  /** Per HTTP request. */
  timeoutMs?: number;
  /** Retries after the first attempt, for transient failures only. */
  retryCount?: number;
  /** The first retry waits about this long, each later one twice as long as the one before. */
  retryDelayMs?: number;
  /**
   * Calls per HTTP batch. Small by default: nodes cap the size of a batch answer (geth at 25 MB),
   * and one mainnet block with its receipts can take more than 1 MB.
   */
  batchSize?: number;
  /** Where each failed attempt is counted, by kind (for the metrics); not counted when omitted. */
  errors?: NodeRequestErrors;
}

const MAX_RETRY_DELAY_MS = 10_000;

/**
 * A JSON-RPC client over HTTP. Transient failures (timeouts, refused or reset connections,
 * HTTP 408/429/5xx, unreadable answers, rate-limit errors) are retried with exponential backoff
 * and jitter, or after the wait the node asked for in Retry-After; a node that still gives no
 * answer is a NodeUnavailableError. JSON-RPC errors such
 * as -32601 (method not found) are not retried: they surface as RpcError.
 */
export function createRpcClient(options: RpcClientOptions): RpcClient {
  const url = checkUrl(options.url);
  const { timeoutMs = 30_000, retryCount = 5, retryDelayMs = 200, batchSize = 20, errors } = options;
  const count = (kind: NodeErrorKind) => errors?.set(kind, (errors.get(kind) ?? 0) + 1);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  // viem's http() transport batches whatever is requested in the same tick and retries each call
  // on its own, so a retried call leaves its batch; the bare HTTP client lets a chunk retry whole.
  const http = getHttpRpcClient(url, { timeout: timeoutMs, maxResponseBodySize: false });

  /** One HTTP request for `calls`; the answers in call order. */
  async function send(calls: readonly RpcCall[], asBatch: boolean): Promise<Answer[]> {
    try {
      if (!asBatch) {
        const [call] = calls as [RpcCall];
        return [readAnswer(await http.request({ body: { method: call.method, params: call.params } }))];
      }
      const answers = await http.request({
        body: calls.map((call, index) => ({ id: index + 1, method: call.method, params: call.params })),
      });
      // Batch answers may come in any order; the ids say which call each one answers. A node that
      // refuses the whole batch answers once, without the ids, and viem repeats that answer per call.
      const byId = new Map<unknown, unknown>(answers.map((answer) => [(answer as { id?: unknown }).id, answer]));
      const refusal = answers.every((answer) => answer === answers[0]) ? answers[0] : undefined;
      return calls.map((_, index) => readAnswer(byId.get(index + 1) ?? refusal));
    } catch (error) {
      // A non-2xx response carrying a JSON-RPC error refuses every call it answers.
      if (error instanceof RpcRequestError && !isTransient(error)) {
        return calls.map(() => ({ error: { code: error.code, message: error.details, data: error.data } }));
      }
      throw error;
    }
  }

  /**
   * Sends `calls` until each has a result or a JSON-RPC error; transient failures and rate-limited
   * calls are sent again. Returns each call's result or refusal.
   */
  async function exchange(calls: readonly RpcCall[], asBatch: boolean): Promise<Outcome[]> {
    const outcomes: Outcome[] = new Array(calls.length);
    let open = calls.map((_, index) => index);
    let attempts = 0;
    const attempt = async () => {
      attempts += 1;
      const answers = await send(
        open.map((index) => calls[index] as RpcCall),
        asBatch,
      ).catch((error: unknown) => {
        count(failureKind(error));
        throw error;
      });
      let rateLimited: RpcError | undefined;
      open = open.filter((index, k) => {
        const answer = answers[k] as Answer;
        if ('result' in answer) {
          outcomes[index] = { result: answer.result };
          return false;
        }
        const refusal = new RpcError((calls[index] as RpcCall).method, answer.error.code, answer.error.message, answer.error.data);
        count(RATE_LIMIT_CODES.has(refusal.code) ? 'rate_limited' : 'refused');
        if (RATE_LIMIT_CODES.has(refusal.code)) {
          rateLimited = refusal;
          return true;
        }
        outcomes[index] = { refusal };
        return false;
      });
      if (rateLimited) throw new RateLimitedError(rateLimited);
    };
    try {
      await withRetry(attempt, {
        retryCount,
        delay: ({ count, error }) => retryAfterMs(error) ?? Math.min(MAX_RETRY_DELAY_MS, retryDelayMs * 2 ** count) * (0.5 + Math.random()),
        shouldRetry: ({ error }) => isTransient(error),
      });
    } catch (error) {
      throw new NodeUnavailableError(url, attempts, describeFailure(error, timeoutMs), { cause: error });
    }
    return outcomes;
  }

  /** One HTTP batch per `batchSize` calls, one after another, stopping at the first refusal when asked to. */
  async function exchangeChunks(calls: readonly RpcCall[], stopOnRefusal: boolean): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    // Chunks go one after another: the caller decides how much to ask for at once, and a node
    // should not see more than one batch of this call in flight.
    for (let start = 0; start < calls.length; start += batchSize) {
      outcomes.push(...(await exchange(calls.slice(start, start + batchSize), true)));
      if (stopOnRefusal && outcomes.some((outcome) => 'refusal' in outcome)) break;
    }
    return outcomes;
  }

  return {
    url,
    async request<T>(method: string, params: unknown[]): Promise<T> {
      const [result] = resultsOrFirstRefusal(await exchange([{ method, params }], false));
      return result as T;
    },
    async batch<T>(calls: readonly RpcCall[]): Promise<T[]> {
      return resultsOrFirstRefusal(await exchangeChunks(calls, true)) as T[];
    },
    async batchSettled<T>(calls: readonly RpcCall[]): Promise<(T | RpcError)[]> {
      return (await exchangeChunks(calls, false)).map((outcome) => ('result' in outcome ? (outcome.result as T) : outcome.refusal));
    },
  };
}

/** What one call came to: a result, or the node's refusal. */
type Outcome = { result: unknown } | { refusal: RpcError };

function resultsOrFirstRefusal(outcomes: readonly Outcome[]): unknown[] {
  return outcomes.map((outcome) => {
    if ('refusal' in outcome) throw outcome.refusal;
    return outcome.result;
  });
}

type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** JSON-RPC error codes that mean "too many requests, come back later". */
const RATE_LIMIT_CODES = new Set([429, -32005, -32007]);

class RateLimitedError extends Error {
  constructor(readonly refusal: RpcError) {
    super(refusal.message);
  }
}

/** A JSON-RPC answer that is neither a result nor an error object. */
class MalformedAnswerError extends Error {}

function readAnswer(answer: unknown): Answer {
  if (typeof answer === 'object' && answer !== null) {
    if ('result' in answer) return { result: answer.result };
    const error = 'error' in answer ? answer.error : undefined;
    if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number') {
      const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
      return { error: { code: error.code, message, data: 'data' in error ? error.data : undefined } };
    }
  }
  throw new MalformedAnswerError(`malformed JSON-RPC answer: ${JSON.stringify(answer)?.slice(0, 200)}`);
}

function isTransient(error: unknown): boolean {
  if (error instanceof TimeoutError || error instanceof RateLimitedError || error instanceof MalformedAnswerError) return true;
  if (error instanceof HttpRequestError || error instanceof RpcRequestError) {
    const { status } = error;
    // No status: the connection failed or the body was not JSON.
    if (status === undefined) return error instanceof HttpRequestError;
    return status === 408 || status === 429 || status >= 500;
  }
  return false;
}

/** How long a node that answered 429 or 503 asked us to wait (Retry-After, seconds or a date), capped; null if it did not say. */
function retryAfterMs(error: unknown): number | null {
  if (!(error instanceof HttpRequestError || error instanceof RpcRequestError)) return null;
  const value = error.headers?.get('retry-after')?.trim();
  if (!value) return null;
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isNaN(ms) ? null : Math.min(MAX_RETRY_DELAY_MS, Math.max(0, ms));
}

function failureKind(error: unknown): NodeErrorKind {
  if (error instanceof TimeoutError) return 'timeout';
  if (error instanceof MalformedAnswerError) return 'malformed';
  if ((error instanceof HttpRequestError || error instanceof RpcRequestError) && error.status !== undefined) return 'http';
  return 'connection';
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof RateLimitedError) return `rate limited: ${error.refusal.nodeMessage}`;
  if (error instanceof TimeoutError) return `timed out after ${timeoutMs} ms`;
  if (error instanceof RpcRequestError) return `HTTP ${error.status}: ${error.details}`;
  if (error instanceof HttpRequestError) return error.status === undefined ? rootCause(error) : `HTTP ${error.status}`;
  return error instanceof Error ? error.message : String(error);
}

/** The innermost cause, which says what actually went wrong (e.g. ECONNREFUSED). */
function rootCause(error: Error): string {
  let cause = error;
  while (cause.cause instanceof Error) cause = cause.cause;
  return 'code' in cause && typeof cause.code === 'string' ? cause.code : cause.message;
}

function checkUrl(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    throw new ConfigError(
      `"${url}" is not a valid JSON-RPC URL; set ETHEREUM_JSONRPC_HTTP_URL to the node's http(s) endpoint, e.g. http://localhost:8545`,
    );
  }
  return url;
}
