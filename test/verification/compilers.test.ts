import { after, before, test } from 'node:test';
import { waitFor } from '../support/wait.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { encodeAbiParameters, keccak256, type Address } from 'viem';
import { createVerifier, type VerificationRequest } from '../../src/verification/index.js';
import { compile, fixture, link, loadSolc, NodeChain } from '../support/verification-chain.js';

const longVersionOf = (reported: string) => /^[^+]+\+commit\.[0-9a-f]+/.exec(reported)![0];

const soljson = readFileSync(createRequire(import.meta.url).resolve('solc-0.8.24/soljson.js'));
/** A version the release list offers with a hash its file does not have. */
const tamperedVersion = '0.8.23+commit.f704f362';

let chain: NodeChain;
let cacheDir: string;
let server: Server;
let releasesUrl: string;
const served = new Map<string, number>();
let bundledVersion: string;
let version: string;
let vaultAddress: Address;
let request: VerificationRequest & { method: 'standard-input' };

const vaultArgs = encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], ['older', 42n]);

function releaseList(): string {
  const build = (longVersion: string, hashes: { sha256: string; keccak256: string }) => ({
    path: `soljson-v${longVersion}.js`,
    version: longVersion.split('+')[0],
    build: longVersion.split('+')[1],
    longVersion,
    urls: [],
    ...hashes,
  });
  const hashes = { sha256: `0x${createHash('sha256').update(soljson).digest('hex')}`, keccak256: keccak256(soljson) };
  return JSON.stringify({
    builds: [build(tamperedVersion, { ...hashes, sha256: `0x${'00'.repeat(32)}` }), build(version, hashes)],
    releases: { '0.8.24': `soljson-v${version}.js` },
    latestRelease: '0.8.24',
  });
}

before(async () => {
  const older = loadSolc('solc-0.8.24');
  version = longVersionOf(older.version());
  bundledVersion = longVersionOf(loadSolc('solc').version());
  assert.notEqual(version, bundledVersion);

  server = createServer((req, res) => {
    served.set(req.url!, (served.get(req.url!) ?? 0) + 1);
    if (req.url === '/solc/bin/list.json') res.end(releaseList());
    else if (req.url === `/solc/bin/soljson-v${version}.js` || req.url === `/solc/bin/soljson-v${tamperedVersion}.js`) res.end(soljson);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  releasesUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/solc`;

  chain = await NodeChain.start();
  cacheDir = await mkdtemp(join(tmpdir(), 'sextant-verification-'));
  const vault = compile(older, { 'Vault.sol': fixture('Vault.sol') });
  const fees = (await chain.deploy(`0x${vault.contracts['Vault.sol']!.Fees!.evm.bytecode.object}`)).address;
  const initCode = link(vault.contracts['Vault.sol']!.Vault!.evm.bytecode.object, { 'Vault.sol:Fees': fees });
  vaultAddress = (await chain.deploy(`${initCode}${vaultArgs.slice(2)}`)).address;
  request = {
    method: 'standard-input',
    compilerVersion: `v${version}`,
    input: JSON.stringify(vault.input),
    contractName: 'Vault.sol:Vault',
    constructorArgs: null,
    autodetectConstructorArgs: true,
    licenseType: null,
  };
});

after(async () => {
  server?.close();
  await chain?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

/** What the verifiers log, for the assertion messages. */
const logged: string[] = [];
const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(line) });

const options = (url: string | null) => ({
  logger,
  cacheDir,
  releasesUrl: url,
  compileTimeoutMs: 120_000,
  compileMemoryMb: 2048,
  maxConcurrentCompiles: 1,
  maxQueuedCompiles: 4,
});

test('a build from the release list is downloaded on first use, checked, kept, and verifies', async () => {
  const verifier = createVerifier(options(releasesUrl));
  try {
    // The first look starts the release list's read without waiting for it: the list shows once it is read.
    assert.deepEqual((await verifier.compilers()).solidity, [`v${bundledVersion}`]);
    await waitFor(async () => (await verifier.compilers()).solidity.length === 3, 'the release list read', { timeoutMs: 30_000 });
    assert.deepEqual(
      (await verifier.compilers()).solidity,
      [`v${bundledVersion}`, `v${version}`, `v${tamperedVersion}`],
      logged.join('\n'),
    );
    const outcome = await verifier.verify(vaultAddress, request, chain.view());
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.contract.compilerVersion, `v${version}`);
    assert.equal(outcome.contract.match, 'full');
    assert.equal(outcome.contract.constructorArgs, vaultArgs);

    const kept = readFileSync(join(cacheDir, `soljson-v${version}.js`));
    assert.ok(kept.equals(soljson));
    assert.equal(served.get(`/solc/bin/soljson-v${version}.js`), 1);
    assert.equal(served.get('/solc/bin/list.json'), 1);

    // Used again: from the cache, nothing downloaded.
    assert.ok((await verifier.verify(vaultAddress, request, chain.view())).ok);
    assert.equal(served.get(`/solc/bin/soljson-v${version}.js`), 1);
  } finally {
    await verifier.close();
  }
});

test('a download whose hash differs from the list is refused and not kept', async () => {
  const verifier = createVerifier(options(releasesUrl));
  try {
    const outcome = await verifier.verify(vaultAddress, { ...request, compilerVersion: `v${tamperedVersion}` }, chain.view());
    assert.ok(!outcome.ok);
    const sha256 = createHash('sha256').update(soljson).digest('hex');
    assert.deepEqual(outcome.errors, {
      compiler_version: [
        `Compiler version v${tamperedVersion} could not be downloaded: its sha256 is 0x${sha256}, the release list says 0x${'00'.repeat(32)}`,
      ],
    });
    assert.equal(served.get(`/solc/bin/soljson-v${tamperedVersion}.js`), 1);
    assert.deepEqual(
      readdirSync(cacheDir).filter((name) => name.includes(tamperedVersion) || name.endsWith('.tmp')),
      [],
    );
  } finally {
    await verifier.close();
  }
});

test('with no release list (none configured, or unreachable) the builds in the cache are listed and used', async () => {
  await new Promise((resolve) => server.close(resolve));
  for (const url of [null, releasesUrl]) {
    const verifier = createVerifier(options(url));
    try {
      assert.deepEqual((await verifier.compilers()).solidity, [`v${bundledVersion}`, `v${version}`]);
      const outcome = await verifier.verify(vaultAddress, request, chain.view());
      assert.ok(outcome.ok && outcome.contract.compilerVersion === `v${version}`);
      const unknown = await verifier.verify(vaultAddress, { ...request, compilerVersion: `v${tamperedVersion}` }, chain.view());
      assert.deepEqual(unknown, { ok: false, errors: { compiler_version: [`Compiler version not found: v${tamperedVersion}`] } });
    } finally {
      await verifier.close();
    }
  }
});
