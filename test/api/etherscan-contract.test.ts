import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import type { Hex } from 'viem';
import { startVerificationJobs, type VerificationJobs } from '../../src/app/verification-jobs.js';
import { DemoERC20 } from '../../src/demo/artifacts.js';
import { demoCompilerVersion, demoStandardInput } from '../../src/demo/standard-input.js';
import { createVerifier, type Verifier } from '../../src/verification/index.js';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { startProxyStage } from '../../src/indexer/stages/proxy-stage.js';
import { requestProxyCheck } from '../../src/store/proxies.js';
import { waitForMined } from '../support/mined.js';
import { compileHandProxies } from '../support/proxy-contracts.js';
import { assertResult } from '../support/etherscan-schemas.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type TokenChain, indexTokenChainWithContracts, startTokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, collectList, startApi } from './http.js';

/**
 * The contract module of the Etherscan-style API, driven with the requests forge's and
 * hardhat-verify's sources build: the already-verified check, the submission as a form, the polling
 * of its GUID, and the source read back, with the variants the tools' own runs in
 * test/e2e/developer-tools.test.ts do not make (the single-file format, both spellings of the
 * constructor arguments, failures, proxies).
 */
describe('the Etherscan-style contract module, as forge and hardhat-verify use it', () => {
  let chain: TokenChain;
  let db: TestDatabase;
  let api: RunningApi;
  let verifier: Verifier;
  let jobs: VerificationJobs;
  let cacheDir: string;
  let proxyStage: BackgroundLoop | undefined;
  /** A Safe-style proxy of the ERC-20, deployed from HandProxies.sol, whose standard JSON input is `handProxies.input`. */
  let proxy: string;
  let proxyArgs: string;
  const handProxies = compileHandProxies();

  type Envelope = { status: string; message: string; result: any };
  const get = async (query: Record<string, string>): Promise<Envelope> => {
    const answer = await fetch(`${api.base}/api?${new URLSearchParams(query)}`);
    assert.equal(answer.status, 200);
    return (await answer.json()) as Envelope;
  };
  /** forge posts a form with module and action in the body; hardhat-verify puts them in the query string. */
  const postForm = async (fields: Record<string, string>, query: Record<string, string> = {}): Promise<Envelope> => {
    const answer = await fetch(`${api.base}/api/?${new URLSearchParams(query)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    assert.equal(answer.status, 200);
    return (await answer.json()) as Envelope;
  };

  before(async () => {
    chain = await startTokenChain();
    proxyArgs = chain.scenario.contracts.erc20.slice(2).toLowerCase().padStart(64, '0');
    const deployment = await chain.client.request<Hex>('eth_sendTransaction', [
      { from: chain.scenario.accounts.deployer, data: `${handProxies.contracts.MasterCopyProxy!.bytecode}${proxyArgs}` },
    ]);
    await waitForMined(chain.client, deployment);
    proxy = (
      await chain.client.request<{ contractAddress: string }>('eth_getTransactionReceipt', [deployment])
    ).contractAddress.toLowerCase();
    db = await createTestDatabase();
    await indexTokenChainWithContracts(chain, db);
    const silent = pino({ level: 'silent' });
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
    jobs = startVerificationJobs({ pool: db.pool, verifier, logger: silent, concurrency: 1, leaseMs: 30_000, pollIntervalMs: 200 });
    api = await startApi(db.pool, {
      verification: { submit: (a, r) => jobs.submit(a, r), compilers: () => verifier.compilers() },
      proxyChecks: { request: (address) => requestProxyCheck(db.pool, address) },
    });
  });

  after(async () => {
    await proxyStage?.stop();
    await api?.close();
    await jobs?.close();
    await verifier?.close();
    await db?.drop();
    await chain?.anvil.stop();
    if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  });

  test('verifysourcecode, then checkverifystatus until it passes; getabi and getsourcecode read it back', async () => {
    const erc20 = chain.scenario.contracts.erc20;
    // forge's already-verified check, and hardhat-verify's.
    assert.deepEqual(await get({ module: 'contract', action: 'getabi', address: erc20 }), {
      status: '0',
      message: 'Contract source code not verified',
      result: null,
    });
    const unverified = await get({ module: 'contract', action: 'getsourcecode', address: erc20 });
    assert.equal(unverified.status, '1');
    assert.equal(unverified.result[0].SourceCode, '');

    const submitted = await postForm({
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: erc20,
      sourceCode: demoStandardInput,
      codeformat: 'solidity-standard-json-input',
      contractname: 'contracts/DemoERC20.sol:DemoERC20',
      compilerversion: demoCompilerVersion,
      constructorArguements: '',
      constructorArguments: '',
    });
    assert.equal(submitted.status, '1', JSON.stringify(submitted));
    assert.equal(submitted.message, 'OK');
    assert.match(submitted.result, new RegExp(`^${erc20.slice(2).toLowerCase()}[0-9a-f]+$`));
    const statuses: string[] = [];
    await waitFor(
      async () => {
        const status = await postForm({ module: 'contract', action: 'checkverifystatus', guid: submitted.result });
        statuses.push(status.result);
        return status.result !== 'Pending in queue';
      },
      'the verification to finish',
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    assert.equal(statuses.at(-1), 'Pass - Verified', statuses.join(', '));

    const abi = await get({ module: 'contract', action: 'getabi', address: erc20 });
    assert.deepEqual(JSON.parse(abi.result), DemoERC20.abi);
    const source = (await get({ module: 'contract', action: 'getsourcecode', address: erc20 })).result[0];
    assert.equal(source.ContractName, 'DemoERC20');
    assert.equal(source.CompilerVersion, demoCompilerVersion);
    assert.equal(source.OptimizationUsed, '1');
    assert.equal(source.Runs, '200');
    assert.equal(source.EVMVersion, 'cancun');
    // A standard JSON input in double braces, as cast source reads several files.
    const sources = JSON.parse(source.SourceCode.slice(1, -1)).sources;
    assert.equal(sources['contracts/DemoERC20.sol'].content, JSON.parse(demoStandardInput).sources['contracts/DemoERC20.sol'].content);
    assert.deepEqual(JSON.parse(source.ABI), DemoERC20.abi);

    // Again: the answer the tools read as "already verified", with the module in the query string as hardhat-verify sends it.
    assert.deepEqual(
      await postForm(
        {
          contractaddress: erc20,
          sourceCode: demoStandardInput,
          codeformat: 'solidity-standard-json-input',
          compilerversion: demoCompilerVersion,
        },
        { module: 'contract', action: 'verifysourcecode' },
      ),
      { status: '0', message: 'Smart-contract already verified.', result: 'Smart-contract already verified.' },
    );
  });

  test('what the tools read as a refusal: no contract, an unknown GUID, a missing codeformat, a failed verification', async () => {
    const form = { module: 'contract', action: 'verifysourcecode', sourceCode: 'contract A {}', compilerversion: demoCompilerVersion };
    const eoa = chain.scenario.accounts.alice;
    assert.deepEqual(await postForm({ ...form, contractaddress: eoa, codeformat: 'solidity-single-file', optimizationUsed: '0' }), {
      status: '0',
      message: 'The address is not a smart contract',
      result: 'The address is not a smart contract',
    });
    assert.equal((await postForm({ ...form, contractaddress: chain.scenario.contracts.erc721 })).message, 'Missing codeformat field');
    assert.deepEqual(await get({ module: 'contract', action: 'checkverifystatus', guid: 'nope' }), {
      status: '1',
      message: 'OK',
      result: 'Unknown UID',
    });
    const wrong = await postForm({
      ...form,
      contractaddress: chain.scenario.contracts.erc721,
      codeformat: 'solidity-single-file',
      optimizationUsed: '1',
      runs: '200',
    });
    assert.equal(wrong.status, '1');
    await waitFor(
      async () => (await get({ module: 'contract', action: 'checkverifystatus', guid: wrong.result })).result === 'Fail - Unable to verify',
      'the wrong source refused',
      { timeoutMs: 120_000, intervalMs: 200 },
    );
  });

  test('getcontractcreation names the creator, the transaction and the init code, and the factory of a child', async () => {
    const { erc20, createChild, caller } = chain.scenario.contracts;
    const answer = await get({ module: 'contract', action: 'getcontractcreation', contractaddresses: `${erc20},${createChild}` });
    assert.equal(answer.status, '1');
    const [token, child] = answer.result;
    const receipt = await chain.client.request<{ from: string; transactionHash: string; blockNumber: string }>(
      'eth_getTransactionReceipt',
      [token.txHash],
    );
    assert.equal(receipt.from.toLowerCase(), token.contractCreator);
    assert.equal(token.contractAddress, erc20.toLowerCase());
    assert.equal(token.blockNumber, String(BigInt(receipt.blockNumber)));
    assert.ok(token.creationBytecode.startsWith(DemoERC20.bytecode.toLowerCase()));
    assert.equal(token.contractFactory, '');
    assert.equal(child.contractFactory, caller.toLowerCase());
    assert.equal((await get({ module: 'contract', action: 'getcontractcreation', contractaddresses: 'x' })).status, '0');
  });

  /** Every page of listcontracts with this filter, `offset` at a time, until the empty page. */
  const listAll = async (filter: string | null, offset: number): Promise<any[]> => {
    const items: any[] = [];
    for (let page = 1; ; page++) {
      const answer = await get({
        module: 'contract',
        action: 'listcontracts',
        page: String(page),
        offset: String(offset),
        ...(filter === null ? {} : { filter }),
      });
      assert.deepEqual([answer.status, answer.message], ['1', 'OK'], JSON.stringify(answer));
      assert.ok(answer.result.length <= offset);
      assertResult('listcontracts', answer.result);
      if (answer.result.length === 0) return items;
      items.push(...answer.result);
    }
  };

  test('listcontracts: the contracts whose code was read, verified (as /api/v2 lists them), unverified or empty, page by page', async () => {
    const all = await listAll(null, 3);
    const addresses = all.map((c) => c.Address);
    assert.deepEqual(addresses, [...addresses].sort(), 'in address order');
    const deployed = [...Object.values(chain.scenario.contracts), proxy].map((a) => a.toLowerCase());
    for (const address of deployed) assert.ok(addresses.includes(address), `${address} is listed`);
    // The node's code of each: empty code is what filter=empty lists, the rest is verified or unverified.
    const codes = new Map(
      await Promise.all(addresses.map(async (a) => [a, await chain.client.request<string>('eth_getCode', [a, 'latest'])] as const)),
    );
    const empty = addresses.filter((a) => codes.get(a) === '0x');
    assert.ok(empty.includes(chain.scenario.contracts.destroyedChild.toLowerCase()));
    assert.deepEqual(
      (await listAll('empty', 2)).map((c) => c.Address),
      empty,
    );
    assert.deepEqual(await listAll('3', 10), await listAll('empty', 10));

    // Verified: the contracts /api/v2/smart-contracts lists, oldest verification first.
    const v2 = (await collectList(api, '/api/v2/smart-contracts')).items.map((c: any) => c.address.hash.toLowerCase()).reverse();
    const verified = await listAll('verified', 1);
    assert.deepEqual(
      verified.map((c) => c.Address),
      v2,
    );
    // The ABI as getabi gives it (jsonb orders an object's keys its own way).
    assert.deepEqual(JSON.parse(verified[0].ABI), DemoERC20.abi);
    assert.deepEqual(verified, [
      {
        Address: chain.scenario.contracts.erc20.toLowerCase(),
        ABI: (await get({ module: 'contract', action: 'getabi', address: chain.scenario.contracts.erc20 })).result,
        ContractName: 'DemoERC20',
        CompilerVersion: demoCompilerVersion,
        OptimizationUsed: '1',
      },
    ]);
    assert.deepEqual(await listAll('1', 5), verified);
    const unverified = await listAll('unverified', 4);
    assert.deepEqual(
      unverified.map((c) => c.Address),
      addresses.filter((a) => !empty.includes(a) && !v2.includes(a)),
    );
    for (const item of [...unverified, ...all.filter((c) => !v2.includes(c.Address))]) {
      assert.deepEqual(item, { Address: item.Address, ABI: 'Contract source code not verified' });
    }
    assert.deepEqual(
      all.find((c) => c.Address === v2[0]),
      verified[0],
    );

    // Ten by default, as Blockscout; a window past 10,000 refused; an unknown filter a 400 in Blockscout's words.
    const first = await get({ module: 'contract', action: 'listcontracts' });
    assert.deepEqual(first.result, all.slice(0, 10));
    assert.deepEqual((await get({ module: 'contract', action: 'listcontracts', page: '2', offset: '20000' })).result, all.slice(10, 20));
    assert.deepEqual(await get({ module: 'contract', action: 'listcontracts', page: '2', offset: '10000' }), {
      status: '0',
      message: 'Result window is too large, PageNo x Offset size must be less than or equal to 10000',
      result: null,
    });
    const refused = await fetch(`${api.base}/api?module=contract&action=listcontracts&filter=decompiled`);
    assert.equal(refused.status, 400);
    assert.deepEqual(await refused.json(), {
      status: '0',
      message: 'decompiled is not a valid value for `filter`. Please use one of: verified, unverified, 1, 2.',
      result: null,
    });
  });

  test('verifyproxycontract and checkproxyverification: a verified proxy checked again by the proxy stage, the GUID answered from the database', async () => {
    const erc20 = chain.scenario.contracts.erc20.toLowerCase();
    const check = (guid: string) => get({ module: 'contract', action: 'checkproxyverification', guid });
    // Blockscout checks verified contracts only.
    assert.deepEqual(await postForm({ module: 'contract', action: 'verifyproxycontract', address: proxy }), {
      status: '0',
      message: 'Smart-contract not found or is not verified',
      result: null,
    });
    const submitted = await postForm({
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: proxy,
      sourceCode: handProxies.input,
      codeformat: 'solidity-standard-json-input',
      contractname: 'HandProxies.sol:MasterCopyProxy',
      compilerversion: demoCompilerVersion,
      constructorArguments: proxyArgs,
    });
    assert.equal(submitted.status, '1', JSON.stringify(submitted));
    await waitFor(
      async () => (await get({ module: 'contract', action: 'checkverifystatus', guid: submitted.result })).result === 'Pass - Verified',
      'the proxy verified',
      { timeoutMs: 120_000, intervalMs: 200 },
    );

    const asked = await postForm({ module: 'contract', action: 'verifyproxycontract', address: proxy, expectedimplementation: erc20 });
    assert.equal(asked.status, '1', JSON.stringify(asked));
    assert.match(asked.result, new RegExp(`^${proxy.slice(2)}[0-9a-f]+$`));
    assertResult('verifyproxycontract', asked.result);
    const notProxy = await get({ module: 'contract', action: 'verifyproxycontract', address: erc20 });
    assert.equal(notProxy.status, '1');
    // No proxy stage runs yet: both wait.
    assert.deepEqual(await check(asked.result), { status: '1', message: 'OK', result: 'Verification in progress' });
    assert.deepEqual(await check(notProxy.result), { status: '1', message: 'OK', result: 'Verification in progress' });

    proxyStage = startProxyStage({
      pool: db.pool,
      client: chain.client,
      logger: pino({ level: 'silent' }),
      batchSize: 10,
      pollIntervalMs: 20,
      backoff: { initialMs: 10, maxMs: 100 },
    });
    await waitFor(async () => (await check(asked.result)).result !== 'Verification in progress', 'the proxy checked', {
      timeoutMs: 60_000,
    });
    await waitFor(async () => (await check(notProxy.result)).result !== 'Verification in progress', 'the token checked', {
      timeoutMs: 60_000,
    });
    const passed = {
      status: '1',
      message: 'OK',
      result: `The proxy's (${proxy}) implementation contract is found at ${erc20} and is successfully updated.`,
    };
    assert.deepEqual(await check(asked.result), passed);
    assertResult('checkproxyverification', passed.result);
    // getsourcecode names the implementation found, as Etherscan's Proxy and Implementation do.
    const source = (await get({ module: 'contract', action: 'getsourcecode', address: proxy })).result[0];
    assert.deepEqual([source.Proxy, source.Implementation], ['1', erc20.toLowerCase()]);
    assert.deepEqual(await check(notProxy.result), {
      status: '0',
      message: 'NOTOK',
      result: 'A corresponding implementation contract was unfortunately not detected for the proxy address.',
    });
    // The GUID is the database's: another API process answers it the same.
    const other = await startApi(db.pool);
    try {
      const answer = await fetch(`${other.base}/api?module=contract&action=checkproxyverification&guid=${asked.result}`);
      assert.deepEqual(await answer.json(), passed);
      // One that cannot ask the proxy stage says so.
      const refused = await fetch(`${other.base}/api?module=contract&action=verifyproxycontract&address=${proxy}`);
      assert.deepEqual(await refused.json(), { status: '0', message: 'Proxy verification is not available on this server', result: null });
    } finally {
      await other.close();
    }

    // What the tools read as a refusal or an unknown GUID.
    assert.equal((await check(`${proxy.slice(2)}${'f'.repeat(15)}`)).result, 'Unknown UID');
    assert.equal((await check('nope')).result, 'Unknown UID');
    assert.deepEqual(await get({ module: 'contract', action: 'checkproxyverification' }), {
      status: '0',
      message: "Query parameter 'guid' is required",
      result: null,
    });
    assert.deepEqual(await get({ module: 'contract', action: 'verifyproxycontract', address: '0x12' }), {
      status: '0',
      message: 'Invalid address hash',
      result: null,
    });
    const eoa = chain.scenario.accounts.alice;
    assert.equal(
      (await get({ module: 'contract', action: 'verifyproxycontract', address: eoa })).message,
      'Smart-contract not found or is not verified',
    );
  });
});
