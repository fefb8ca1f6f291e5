import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import type { VerificationService } from '../../src/api/route.js';
import { startVerificationJobs, type VerificationJobs } from '../../src/app/verification-jobs.js';
import { DemoChild, DemoERC20 } from '../../src/demo/artifacts.js';
import { demoCompilerVersion, demoStandardInput } from '../../src/demo/standard-input.js';
import { createVerifier, type Verifier } from '../../src/verification/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { PhoenixClient } from '../support/phoenix-client.js';
import { type TokenChain, indexTokenChainWithContracts, startTokenChain } from '../support/token-chain.js';
import { startSextant } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, startApi } from './http.js';

const silent = pino({ level: process.env.TEST_LOG ?? 'silent' });

/** The form Blockscout's frontend sends for a standard JSON input (ui/contractVerification/utils.ts). */
function standardInputForm(fields: Record<string, string>, input: string): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set('files[0]', new Blob([input], { type: 'application/json' }), 'input.json');
  return form;
}

describe('verifying contracts through the API, as the frontend does', () => {
  let chain: TokenChain;
  let db: TestDatabase;
  let api: RunningApi;
  let socket: PhoenixClient;
  let verifier: Verifier;
  let jobs: VerificationJobs;
  let cacheDir: string;

  const post = async (address: string, method: string, body: FormData | object) => {
    const answer = await fetch(`${api.base}/api/v2/smart-contracts/${address}/verification/via/${method}`, {
      method: 'POST',
      ...(body instanceof FormData ? { body } : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };

  /** Joins the contract's topic, as the form does before it submits, and waits for the result it pushes. */
  const resultOf = async (address: string, submit: () => Promise<{ status: number; body: Record<string, unknown> }>) => {
    const topic = `addresses:${address.toLowerCase()}`;
    const [status] = await socket.join(topic);
    assert.equal(status, 'ok');
    const before = socket.pushes(topic, 'verification_result').length;
    const answer = await submit();
    assert.deepEqual(answer, { status: 200, body: { message: 'Smart-contract verification started' } });
    await waitFor(() => socket.pushes(topic, 'verification_result').length > before, `verification_result on ${topic}`, {
      timeoutMs: 120_000,
    });
    return socket.pushes(topic, 'verification_result')[before] as { status: string; errors?: Record<string, string[]> };
  };

  before(async () => {
    chain = await startTokenChain();
    db = await createTestDatabase();
    await indexTokenChainWithContracts(chain, db);
    cacheDir = await mkdtemp(join(tmpdir(), 'sextant-compilers-'));
    verifier = createVerifier({
      cacheDir,
      releasesUrl: null,
      compileTimeoutMs: 120_000,
      compileMemoryMb: 1024,
      maxConcurrentCompiles: 1,
      maxQueuedCompiles: 4,
      logger: silent,
    });
    jobs = startVerificationJobs({ pool: db.pool, verifier, logger: silent, concurrency: 1, leaseMs: 300_000, pollIntervalMs: 200 });
    const verification: VerificationService = { submit: (a, r) => jobs.submit(a, r), compilers: () => verifier.compilers() };
    api = await startApi(db.pool, { changeConnection: { connectionString: db.url }, verification });
    socket = await PhoenixClient.connect(api.base);
  });

  after(async () => {
    socket?.socket.close();
    await api?.close();
    await jobs?.close();
    await verifier?.close();
    await db?.drop();
    await chain?.anvil.stop();
    if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  });

  test('the verification config lists the bundled compiler and the methods served', async () => {
    const { status, body } = await api.get('/api/v2/smart-contracts/verification/config');
    assert.equal(status, 200);
    assert.ok(body.solidity_compiler_versions.includes(demoCompilerVersion), JSON.stringify(body.solidity_compiler_versions));
    assert.ok(body.solidity_evm_versions.includes('default'));
    assert.deepEqual([...body.verification_options].sort(), ['flattened-code', 'multi-part', 'sourcify', 'standard-input']);
    assert.equal(body.license_types.mit, 3);
  });

  test('an unverified contract answers its code; an address that is no contract is a 404', async () => {
    const erc20 = chain.scenario.contracts.erc20;
    const { status, body } = await api.get(`/api/v2/smart-contracts/${erc20}`);
    assert.equal(status, 200);
    assert.equal(body.deployed_bytecode, (await chain.client.request<string>('eth_getCode', [erc20, 'latest'])).toLowerCase());
    assert.ok(body.creation_bytecode.startsWith(DemoERC20.bytecode.toLowerCase()), 'the creation code is the deploying input');
    assert.equal(body.is_verified, undefined);
    const eoa = chain.scenario.accounts.alice;
    assert.equal((await api.get(`/api/v2/smart-contracts/${eoa}`)).status, 404);
    assert.equal((await post(eoa, 'flattened-code', { compiler_version: demoCompilerVersion, source_code: 'contract A {}' })).status, 404);
  });

  test('the standard JSON input verifies the ERC-20: its page shows the source, ABI and compiler', async () => {
    const erc20 = chain.scenario.contracts.erc20;
    const form = { compiler_version: demoCompilerVersion, license_type: 'mit', autodetect_constructor_args: 'true', contract_name: '' };
    const result = await resultOf(erc20, () => post(erc20, 'standard-input', standardInputForm(form, demoStandardInput)));
    assert.deepEqual(result, { status: 'success' });
    const topic = `addresses:${erc20.toLowerCase()}`;
    await waitFor(() => socket.pushes(topic, 'smart_contract_was_verified').length > 0, 'smart_contract_was_verified');
    const { body } = await api.get(`/api/v2/smart-contracts/${erc20}`);
    assert.equal(body.is_verified, true);
    assert.equal(body.is_fully_verified, true);
    assert.equal(body.is_partially_verified, false);
    assert.equal(body.name, 'DemoERC20');
    assert.equal(body.compiler_version, demoCompilerVersion);
    assert.equal(body.file_path, 'contracts/DemoERC20.sol');
    assert.deepEqual(body.abi, DemoERC20.abi);
    assert.equal(body.optimization_enabled, true);
    assert.equal(body.optimization_runs, 200);
    assert.equal(body.evm_version, 'cancun');
    assert.equal(body.license_type, 'mit');
    assert.ok(body.additional_sources.some((s: { file_path: string }) => s.file_path.startsWith('@openzeppelin/')));
    // Verified in full: the form is told so, and nothing is queued.
    assert.deepEqual(await post(erc20, 'standard-input', standardInputForm(form, demoStandardInput)), {
      status: 200,
      body: { message: 'Already verified' },
    });
  });

  test('a flattened source verifies a contract another contract created, and its twin shows the same source', async () => {
    const { createChild, create2Child } = chain.scenario.contracts;
    const source = JSON.parse(demoStandardInput).sources['contracts/DemoChild.sol'].content as string;
    const form = {
      compiler_version: demoCompilerVersion,
      source_code: source,
      is_optimization_enabled: true,
      optimization_runs: 200,
      evm_version: 'cancun',
      contract_name: 'DemoChild',
      autodetect_constructor_args: true,
      license_type: 'apache_2_0',
    };
    assert.deepEqual(await resultOf(createChild, () => post(createChild, 'flattened-code', form)), { status: 'success' });
    const own = (await api.get(`/api/v2/smart-contracts/${createChild}`)).body;
    assert.equal(own.name, 'DemoChild');
    assert.deepEqual(own.abi, DemoChild.abi);
    assert.equal(own.verified_twin_address_hash, null);
    const twin = (await api.get(`/api/v2/smart-contracts/${create2Child}`)).body;
    assert.equal(twin.name, 'DemoChild');
    assert.equal(twin.verified_twin_address_hash.toLowerCase(), createChild.toLowerCase());
  });

  test('a wrong source is answered with the errors on the websocket, and nothing is stored', async () => {
    const erc721 = chain.scenario.contracts.erc721;
    const form = {
      compiler_version: demoCompilerVersion,
      source_code: 'pragma solidity ^0.8.0; contract Other { uint public x = 1; }',
      contract_name: '',
    };
    const result = await resultOf(erc721, () => post(erc721, 'flattened-code', form));
    assert.equal(result.status, 'error');
    assert.ok(Object.values(result.errors ?? {}).flat().length > 0, JSON.stringify(result));
    assert.equal((await api.get(`/api/v2/smart-contracts/${erc721}`)).body.is_verified, undefined);
    const broken = await resultOf(erc721, () => post(erc721, 'flattened-code', { ...form, source_code: 'contract {' }));
    assert.ok((broken.errors?.contract_source_code ?? []).length > 0, JSON.stringify(broken));
  });

  test('bad forms are a 422 naming the field', async () => {
    const erc721 = chain.scenario.contracts.erc721;
    const answer = await post(erc721, 'flattened-code', {
      source_code: 'contract A {}',
      optimization_runs: 'many',
      libraries: 'not json',
      license_type: 'nope',
    });
    assert.equal(answer.status, 422);
    const named = (answer.body.errors as { source: { pointer: string } }[]).map((e) => e.source.pointer).sort();
    assert.deepEqual(named, ['/compiler_version', '/libraries', '/license_type', '/optimization_runs']);
    const noFile = await post(erc721, 'standard-input', standardInputForm({ compiler_version: demoCompilerVersion }, 'not json'));
    assert.equal(noFile.status, 422);
    assert.equal((await post(erc721, 'vyper-code', {})).status, 422);
    assert.equal((await post('0x12', 'flattened-code', {})).status, 422);
  });

  test('the verified contracts list and counters count what was verified', async () => {
    const list = await api.get('/api/v2/smart-contracts');
    assert.equal(list.status, 200);
    const verified = list.body.items.map((i: { address: { hash: string } }) => i.address.hash.toLowerCase());
    assert.deepEqual(verified, [chain.scenario.contracts.createChild.toLowerCase(), chain.scenario.contracts.erc20.toLowerCase()]);
    const byName = await api.get('/api/v2/smart-contracts?q=erc20');
    assert.deepEqual(
      byName.body.items.map((i: { address: { hash: string } }) => i.address.hash.toLowerCase()),
      [chain.scenario.contracts.erc20.toLowerCase()],
    );
    const counters = await api.get('/api/v2/smart-contracts/counters');
    assert.equal(counters.body.verified_smart_contracts, '2');
    assert.equal(counters.body.smart_contracts, String((await db.pool.query('SELECT 1 FROM addresses WHERE is_contract')).rowCount));
  });

  test('verifications survive a restart of sextant serve: a result is served again, a job left running is run by the next process', async () => {
    // Only the sextant processes below run jobs from here on.
    await jobs.close();
    const env = { DATABASE_URL: db.url, SEXTANT_DATA_DIR: cacheDir, SOLC_BIN_API_URL: 'none' };
    const first = await startSextant(env, 120_000, 'serve');
    const erc1155 = chain.scenario.contracts.erc1155;
    try {
      const erc20 = (await (await fetch(`${first.baseUrl}/api/v2/smart-contracts/${chain.scenario.contracts.erc20}`)).json()) as Record<
        string,
        unknown
      >;
      assert.equal(erc20.is_verified, true);
      const form = standardInputForm(
        { compiler_version: demoCompilerVersion, contract_name: 'contracts/DemoERC1155.sol:DemoERC1155' },
        demoStandardInput,
      );
      const answer = await fetch(`${first.baseUrl}/api/v2/smart-contracts/${erc1155}/verification/via/standard-input`, {
        method: 'POST',
        body: form,
      });
      assert.equal(answer.status, 200);
    } finally {
      // Killed while it runs the job: the job stays pending, claimed by a process that is gone.
      process.kill(first.pid, 'SIGKILL');
    }
    const pending = await db.pool.query("SELECT 1 FROM verification_jobs WHERE status = 'pending'");
    assert.equal(pending.rowCount, 1, 'the job was left unfinished');
    const second = await startSextant(env, 120_000, 'serve');
    try {
      await waitFor(
        async () =>
          ((await (await fetch(`${second.baseUrl}/api/v2/smart-contracts/${erc1155}`)).json()) as { is_verified?: boolean }).is_verified ===
          true,
        'the job left by the killed process run by the next one',
        { timeoutMs: 120_000, intervalMs: 500 },
      );
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });
});
