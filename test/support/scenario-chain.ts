import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { runScenario } from '../../src/demo/scenario.js';

export interface ScenarioChain {
  anvil: AnvilNode;
  client: RpcClient;
  head: bigint;
}

/**
 * The demo scenario on a new anvil, then `extraBlocks` blocks of one value transfer each, so that
 * indexing takes a while: the chain the fault tests index, stop and index again.
 */
export async function startScenarioChain(extraBlocks: number): Promise<ScenarioChain> {
  const anvil = await startAnvil();
  await runScenario(anvil.rpcUrl);
  const client = createRpcClient({ url: anvil.rpcUrl });
  const [from, to] = await client.request<string[]>('eth_accounts', []);
  for (let i = 0; i < extraBlocks; i++) await client.request('eth_sendTransaction', [{ from, to, value: `0x${(i + 1).toString(16)}` }]);
  return { anvil, client, head: BigInt(await client.request<string>('eth_blockNumber', [])) };
}
