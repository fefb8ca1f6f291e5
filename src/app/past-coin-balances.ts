import type { Logger } from 'pino';
import type { PastCoinBalances } from '../api/route.js';
import { readCoinBalances } from '../chain/coin-balances.js';
import { createRpcClient } from '../chain/rpc.js';
import type { NodeConnection } from './node.js';

/**
 * The node's balances at a past block, for the state changes the index cannot tell, with a short
 * timeout of their own: a request waits on them. A node that no longer keeps the block's state, or
 * fails, leaves them unknown (null) rather than failing the request.
 */
export function pastCoinBalancesFromNode(node: NodeConnection, logger: Logger): PastCoinBalances {
  const client = createRpcClient({ url: node.client.url, timeoutMs: 5_000, retryCount: 1, errors: node.errors });
  return async (addresses, blockNumber) => {
    try {
      return await readCoinBalances(client, addresses, blockNumber);
    } catch (error) {
      logger.debug(`balances at block ${blockNumber} unknown: ${(error as Error).message}`);
      return addresses.map(() => null);
    }
  };
}
