/**
 * What decoding costs the transactions list: GET /api/v2/transactions (its newest 50 transactions,
 * every one a call of a struct-taking function, half of them to a bytecode twin) from a `sextant serve`
 * process, loaded by autocannon, before any contract is verified and after; latency p50 and p99 and
 * requests/s of each.
 * Run: npm run bench:decoding [-- <seconds> <connections>]
 */
import autocannon from 'autocannon';
import { createWalletClient, http } from 'viem';
import { DemoCaller, DemoERC1155, DemoERC721 } from '../../src/demo/artifacts.js';
import { startIndexer } from '../../src/indexer/blocks/indexer.js';
import { createTestDatabase } from '../../test/support/database.js';
import { probeOrder, startDecodingChain, storeContractCodes, storeVerifiedContract } from '../../test/support/decoding-chain.js';
import { testIndexerOptions } from '../../test/support/indexer-options.js';
import { waitForMined } from '../../test/support/mined.js';
import { type RunningSextant, startSextant } from '../../test/support/sextant-process.js';

const [seconds = '15', connections = '8'] = process.argv.slice(2);
const path = '/api/v2/transactions';

interface Figures {
  p50: number;
  p99: number;
  perSecond: number;
  /** Answers other than 200: a 503 when a request waited too long for a connection on a busy machine. */
  refused: number;
}

async function load(base: string): Promise<Figures> {
  await autocannon({ url: base + path, connections: 4, amount: 300 });
  const result = await autocannon({ url: base + path, connections: Number(connections), duration: Number(seconds) });
  if (result.errors > 0) throw new Error(`${result.errors} requests failed`);
  return { p50: result.latency.p50, p99: result.latency.p99, perSecond: result.requests.total / Number(seconds), refused: result.non2xx };
}

const decodedOnPage = async (base: string): Promise<number> => {
  const page = (await (await fetch(base + path)).json()) as { items: { decoded_input: unknown }[] };
  return page.items.filter((t) => t.decoded_input !== null).length;
};

const chain = await startDecodingChain();
const db = await createTestDatabase();
let serving: RunningSextant | null = null;
try {
  const wallet = createWalletClient({ transport: http(chain.anvil.rpcUrl) });
  const { alice, bob } = chain.scenario.accounts;
  for (let n = 0; n < 60; n++) {
    const address = n % 2 === 0 ? chain.probes.first : chain.probes.twin;
    const args = [probeOrder(alice, BigInt(n)), `label ${n}`, [BigInt(n), 1n], [probeOrder(bob, BigInt(n + 1))]];
    const hash = await wallet.writeContract({ address, abi: chain.probe.abi, functionName: 'place', args, account: bob, chain: null });
    await waitForMined(chain.client, hash);
  }
  const head = BigInt(await chain.client.request<string>('eth_blockNumber', []));
  await startIndexer(await testIndexerOptions(db, chain.client, head)).done;
  const codeHashes = await storeContractCodes(db.pool, chain.client, head);
  // No load shedding: the figures are of the work per request, on whatever the machine has to spare.
  serving = await startSextant({ DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1', API_MAX_EVENT_LOOP_DELAY_MS: '0' }, 120_000, 'serve');

  const unverified = await load(serving.baseUrl);
  const before = await decodedOnPage(serving.baseUrl);
  const { contracts } = chain.scenario;
  const verifications = [
    [contracts.erc721, DemoERC721.abi],
    [contracts.erc1155, DemoERC1155.abi],
    [contracts.caller, DemoCaller.abi],
    [chain.probes.first, chain.probe.abi],
  ] as const;
  for (const [address, abi] of verifications) await storeVerifiedContract(db.pool, address, codeHashes.get(address.toLowerCase())!, abi);
  const verified = await load(serving.baseUrl);
  const after = await decodedOnPage(serving.baseUrl);

  console.log(`GET ${path}, ${connections} connections, ${seconds} s each, after 300 requests of warm-up`);
  const line = (what: string, f: Figures) => `${what}: p50 ${f.p50} ms, p99 ${f.p99} ms, ${f.perSecond.toFixed(0)} requests/s`;
  console.log(line(`no contract verified (${before} of 50 decoded)`, unverified));
  console.log(line(`four contracts verified (${after} of 50 decoded)`, verified));
} finally {
  await serving?.stop();
  await db.drop();
  await chain.anvil.stop();
}
