import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { runScenario } from '../../src/demo/scenario.js';
import type { Hex } from 'viem';
import { waitForMined } from './mined.js';

export interface ScenarioChain {
  anvil: AnvilNode;
  client: RpcClient;
  head: bigint;
}

/**
 * The demo scenario on a new anvil, then `extraBlocks` blocks of one value transfer each, so that
 * indexing takes a while: the chain the fault tests index, stop and index again. anvil answers
 * eth_sendTransaction before it mines the block: the head is read once the last transfer is mined, or
 * a block mined after it would leave an index stopped at LAST_BLOCK behind a node that keeps no state
 * of it (and its coin balances unread).
 */
export async function startScenarioChain(extraBlocks: number): Promise<ScenarioChain> {
  const anvil = await startAnvil();
  await runScenario(anvil.rpcUrl);
  const client = createRpcClient({ url: anvil.rpcUrl });
  const [from, to] = await client.request<string[]>('eth_accounts', []);
  let last: Hex | null = null;
  for (let i = 0; i < extraBlocks; i++)
    last = await client.request<Hex>('eth_sendTransaction', [{ from, to, value: `0x${(i + 1).toString(16)}` }]);
  if (last !== null) await waitForMined(client, last, 'the last extra transfer');
  return { anvil, client, head: BigInt(await client.request<string>('eth_blockNumber', [])) };
}
