import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { RpcError } from '../chain/errors.js';
import type { RpcClient } from '../chain/rpc.js';
import { ConfigError } from '../errors.js';
import { clearIndexedData, readChainFacts, recordChainFact, type ChainFactKey } from '../store/chain-facts.js';

async function genesisHash(client: RpcClient): Promise<string | null> {
  try {
    const genesis = await client.request<{ hash?: string } | null>('eth_getBlockByNumber', ['0x0', false]);
    return genesis?.hash?.toLowerCase() ?? null;
  } catch (error) {
    // A pruned node may refuse (or answer null for) the genesis block; the chain id then identifies
    // the chain alone, and a later start records the genesis. A node that does not answer is an error.
    if (error instanceof RpcError) return null;
    throw error;
  }
}

/**
 * Makes sure one database never mixes two chains. The demo chain is new at every start, so a demo
 * index of an earlier run is cleared instead of refused.
 */
export async function ensureSameChain(
  pool: Pool,
  client: RpcClient,
  chainId: bigint | number | null,
  options: { demo: boolean; logger: Logger },
): Promise<void> {
  const node = new Map<ChainFactKey, string | null>([
    ['chain_id', chainId === null ? null : chainId.toString()],
    ['genesis_hash', await genesisHash(client)],
  ]);
  const stored = await readChainFacts(pool);
  const differs = [...node].some(([key, value]) => value !== null && stored.has(key) && stored.get(key) !== value);
  if (differs) {
    if (!options.demo) {
      throw new ConfigError(
        `the database holds another chain (chain id ${stored.get('chain_id') ?? 'unknown'}, genesis ${stored.get('genesis_hash') ?? 'unknown'}) than the node serves (chain id ${node.get('chain_id') ?? 'unknown'}, genesis ${node.get('genesis_hash') ?? 'unknown'}); use another DATABASE_URL or SEXTANT_DATA_DIR`,
      );
    }
    await clearIndexedData(pool);
    options.logger.info('a new demo chain started: the index of the previous one was cleared');
  }
  for (const [key, value] of node) if (value !== null) await recordChainFact(pool, key, value);
}
