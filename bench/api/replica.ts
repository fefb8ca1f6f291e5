/**
 * Requests/s of one page served from a streaming replica by one `sextant serve` process, then by two
 * (each loaded by its own autocannon at once, their rates summed): the demo chain indexed into a
 * throwaway primary, the replica made with pg_basebackup, everything on this machine's cores.
 * Run: npm run bench:replica [-- <path> <seconds> <connections per process>]
 */
import autocannon from 'autocannon';
import { createRpcClient } from '../../src/chain/rpc.js';
import { startAnvil } from '../../src/demo/anvil.js';
import { runScenario } from '../../src/demo/scenario.js';
import { startReplicatedCluster } from '../../test/support/replicated-cluster.js';
import { runSextant, startSextant, type RunningSextant } from '../../test/support/sextant-process.js';

const [path = '/api/v2/transactions', seconds = '20', connections = '16'] = process.argv.slice(2);

async function requestsPerSecond(base: string): Promise<number> {
  const result = await autocannon({ url: base + path, connections: Number(connections), duration: Number(seconds) });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers and ${result.errors} errors from ${base}`);
  return result.requests.total / Number(seconds);
}

const cluster = await startReplicatedCluster();
const anvil = await startAnvil();
const serving: RunningSextant[] = [];
try {
  await runScenario(anvil.rpcUrl);
  const head = await createRpcClient({ url: anvil.rpcUrl }).request<string>('eth_blockNumber', []);
  const env = { DATABASE_URL: cluster.primaryUrl, ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl, LAST_BLOCK: String(BigInt(head)) };
  const indexed = await runSextant(['index'], env, 240_000);
  if (indexed.code !== 0) throw new Error(`sextant index failed:\n${indexed.stderr}`);
  await cluster.caughtUp();
  const serveEnv = {
    DATABASE_URL: cluster.primaryUrl,
    DATABASE_READ_ONLY_API_URL: cluster.replicaUrl,
    PORT: '0',
    HOST: '127.0.0.1',
  };
  for (let n = 0; n < 2; n++) serving.push(await startSextant(serveEnv, 120_000, 'serve'));
  // Warm both (connections, plans, JIT) before either figure.
  await Promise.all(serving.map((s) => autocannon({ url: s.baseUrl + path, connections: 4, amount: 500 })));
  const one = await requestsPerSecond(serving[0]!.baseUrl);
  const two = (await Promise.all(serving.map((s) => requestsPerSecond(s.baseUrl)))).reduce((a, b) => a + b, 0);
  console.log(`GET ${path}, ${connections} connections per process, ${seconds} s each`);
  console.log(`one serve process on the replica:  ${one.toFixed(0)} requests/s`);
  console.log(`two serve processes on the replica: ${two.toFixed(0)} requests/s (${(two / one).toFixed(2)}x)`);
} finally {
  for (const s of serving) await s.stop();
  await anvil.stop();
  await cluster.destroy();
}
