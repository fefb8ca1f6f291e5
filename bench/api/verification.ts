/**
 * What contract verification costs and what it costs the rest of the API, on the demo chain served by
 * `sextant serve`: the time from a verification form's POST to its stored result, against a bare compile
 * of the same standard JSON input with the same compiler in this process (the floor); and the p99 of
 * GET /api/v2/transactions at one connection while four verifications run, against its p99 at rest.
 * Run: npm run bench:verification [-- <seconds>]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_OUTPUT_SELECTION } from '@ethereum-sourcify/lib-sourcify';
import autocannon from 'autocannon';
import solc from 'solc';
import { demoCompilerVersion, demoStandardInput } from '../../src/demo/standard-input.js';
import { createTestDatabase } from '../../test/support/database.js';
import { type RunningSextant, startSextant } from '../../test/support/sextant-process.js';
import { indexTokenChainWithContracts, startTokenChain } from '../../test/support/token-chain.js';
import { waitFor } from '../../test/support/wait.js';

const [seconds = '20'] = process.argv.slice(2);
const path = '/api/v2/transactions';

/** The demo's standard JSON input, its optimizer runs changed so that each is a compile of its own. */
const inputWithRuns = (runs: number): string => {
  const input = JSON.parse(demoStandardInput) as { settings: { optimizer: { runs: number } } };
  input.settings.optimizer.runs = runs;
  return JSON.stringify(input);
};

async function submit(base: string, address: string, input: string, name: string): Promise<void> {
  const form = new FormData();
  form.set('compiler_version', demoCompilerVersion);
  form.set('contract_name', name);
  form.set('files[0]', new Blob([input], { type: 'application/json' }), 'input.json');
  const answer = await fetch(`${base}/api/v2/smart-contracts/${address}/verification/via/standard-input`, { method: 'POST', body: form });
  if (answer.status !== 200) throw new Error(`${answer.status} ${await answer.text()}`);
}

async function p99AtOneConnection(base: string): Promise<{ p50: number; p99: number; requests: number }> {
  const result = await autocannon({ url: base + path, connections: 1, duration: Number(seconds) });
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${result.errors} errors, ${result.non2xx} answers other than 200`);
  return { p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total };
}

const chain = await startTokenChain();
const db = await createTestDatabase();
const dataDir = await mkdtemp(join(tmpdir(), 'sextant-bench-verification-'));
let serving: RunningSextant | null = null;
try {
  await indexTokenChainWithContracts(chain, db);

  // The floor: one compile with the outputs the matching asks for, the compiler loaded already (solc is imported above).
  const floorInput = JSON.parse(demoStandardInput) as { settings: Record<string, unknown> };
  floorInput.settings.outputSelection = DEFAULT_OUTPUT_SELECTION;
  const floorStarted = performance.now();
  solc.compile(JSON.stringify(floorInput));
  const floorMs = performance.now() - floorStarted;

  serving = await startSextant(
    { DATABASE_URL: db.url, SEXTANT_DATA_DIR: dataDir, SOLC_BIN_API_URL: 'none', API_MAX_EVENT_LOOP_DELAY_MS: '0' },
    120_000,
    'serve',
  );
  const base = serving.baseUrl;
  const { contracts } = chain.scenario;
  const finished = async (address: string) =>
    (
      await db.pool.query("SELECT 1 FROM verification_jobs WHERE address = $1 AND status <> 'pending'", [
        Buffer.from(address.slice(2), 'hex'),
      ])
    ).rowCount! > 0;
  const timeVerification = async (address: string, name: string): Promise<number> => {
    const started = performance.now();
    await submit(base, address, demoStandardInput, name);
    await waitFor(() => finished(address), `the verification of ${name}`, { timeoutMs: 300_000, intervalMs: 20 });
    return performance.now() - started;
  };
  const coldMs = await timeVerification(contracts.erc20, 'contracts/DemoERC20.sol:DemoERC20');
  const warmMs = await timeVerification(contracts.erc721, 'contracts/DemoERC721.sol:DemoERC721');

  await autocannon({ url: base + path, connections: 1, amount: 200 });
  const atRest = await p99AtOneConnection(base);
  // Four verifications of inputs compiled once each (other optimizer runs: none matches), submitted together.
  const busy = [contracts.erc1155, contracts.caller, contracts.createChild, contracts.create2Child];
  await Promise.all(busy.map((address, i) => submit(base, address, inputWithRuns(201 + i), '')));
  const during = await p99AtOneConnection(base);
  const left = (await db.pool.query("SELECT 1 FROM verification_jobs WHERE status = 'pending'")).rowCount;

  console.log(
    `floor: a bare compile of the demo's standard JSON input (solc ${solc.version()}, in process, loaded): ${floorMs.toFixed(0)} ms`,
  );
  console.log(
    `verify the demo ERC-20 through the API (POST to stored result; compiler process started, loaded, two compiles): ${coldMs.toFixed(0)} ms = ${(coldMs / floorMs).toFixed(2)}x the floor`,
  );
  console.log(
    `verify the demo ERC-721 with the same input (its compile cached): ${warmMs.toFixed(0)} ms = ${(warmMs / floorMs).toFixed(2)}x the floor`,
  );
  console.log(
    `GET ${path} at 1 connection, ${seconds} s: at rest p50 ${atRest.p50} ms, p99 ${atRest.p99} ms (${atRest.requests} requests)`,
  );
  console.log(
    `  while four verifications run: p50 ${during.p50} ms, p99 ${during.p99} ms (${during.requests} requests); ${left} of the four still pending at the end`,
  );
} finally {
  await serving?.stop();
  await db.drop();
  await chain.anvil.stop();
  await rm(dataDir, { recursive: true, force: true });
}
