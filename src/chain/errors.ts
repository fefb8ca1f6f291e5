import { RetryableError } from '../errors.js';

/** The ways talking to a node can fail, each telling the caller what to do about it. */

/**
 * JSON-RPC errors by which a node says that it could not serve the call now, not that the call is
 * wrong: invalid params (anvil's block out of range while it mines), resource not found or
 * unavailable, limit exceeded; and the messages of a node whose block or state is not there (yet),
 * that timed out, or is busy.
 */
const NOT_NOW_CODES = new Set([-32602, -32001, -32002, -32005]);
const NOT_NOW_MESSAGE =
  /header not found|block not found|unknown block|out of range|missing trie node|state .*not available|timed? ?out|rate limit|too many requests|busy|unavailable/i;

/**
 * The node answered a call with a JSON-RPC error. Unless the node says that it could not serve the
 * call now (`retryable`), it will most likely answer the same way again.
 */
export class RpcError extends Error {
  override name = 'RpcError';
  readonly retryable: boolean;

  constructor(
    readonly method: string,
    readonly code: number,
    /** The node's own error message. */
    readonly nodeMessage: string,
    readonly data?: unknown,
  ) {
    super(`${method} failed on the node: ${nodeMessage} (JSON-RPC error ${code})`);
    this.retryable = NOT_NOW_CODES.has(code) || NOT_NOW_MESSAGE.test(nodeMessage);
  }
}

/** No usable answer came back, even after retries: the node is down, unreachable or overloaded. */
export class NodeUnavailableError extends RetryableError {
  override name = 'NodeUnavailableError';

  constructor(
    readonly url: string,
    readonly attempts: number,
    reason: string,
    options?: { cause?: unknown },
  ) {
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    super(
      `no answer from the JSON-RPC node at ${url} after ${tries} (${reason}); check ETHEREUM_JSONRPC_HTTP_URL and that the node is running`,
      options,
    );
  }
}

/**
 * The node answered, but with something that is not well-formed chain data. Retryable: a glitching
 * node answers well next time, and what it said is never stored.
 */
export class InvalidNodeResponseError extends RetryableError {
  override name = 'InvalidNodeResponseError';

  constructor(
    /** What was asked for, e.g. `block 18000000` or `eth_chainId`. */
    readonly subject: string,
    /** The path of the offending value, e.g. `transactions[3].gasPrice`. */
    readonly field: string,
    problem: string,
  ) {
    super(`invalid node response for ${subject}: ${field ? `${field} ` : ''}${problem}`);
  }
}

/** The node does not have this block (or part of its data) yet; asking again later may succeed. */
export class BlockNotFoundError extends RetryableError {
  override name = 'BlockNotFoundError';

  constructor(
    readonly blockNumber: bigint,
    readonly method: string,
  ) {
    super(`the node has no data for block ${blockNumber} yet (${method} returned null)`);
  }
}

/** The node's chain changed between the answers to one question (a reorg meanwhile): asking again gets answers that agree. */
export class ChainChangedError extends RetryableError {
  override name = 'ChainChangedError';
}
