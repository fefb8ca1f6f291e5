/** The ways talking to a node can fail, each telling the caller what to do about it. */

/** The node answered a call with a JSON-RPC error: it will most likely answer the same way again. */
export class RpcError extends Error {
  override name = 'RpcError';

  constructor(
    readonly method: string,
    readonly code: number,
    /** The node's own error message. */
    readonly nodeMessage: string,
    readonly data?: unknown,
  ) {
    super(`${method} failed on the node: ${nodeMessage} (JSON-RPC error ${code})`);
  }
}

/** No usable answer came back, even after retries: the node is down, unreachable or overloaded. */
export class NodeUnavailableError extends Error {
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

/** The node answered, but with something that is not well-formed chain data. */
export class InvalidNodeResponseError extends Error {
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
export class BlockNotFoundError extends Error {
  override name = 'BlockNotFoundError';

  constructor(
    readonly blockNumber: bigint,
    readonly method: string,
  ) {
    super(`the node has no data for block ${blockNumber} yet (${method} returned null)`);
  }
}
