import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Address } from 'viem';
import { CompilerProcess, CompilerStoppedError } from '../../src/verification/compiler-process.js';
import { createVerifier, VerifierBusyError, type VerificationRequest, type VerifierOptions } from '../../src/verification/index.js';
import { compile, fixture, loadSolc, NodeChain, type Compiled } from '../support/verification-chain.js';

/** A contract whose compile through the IR optimizer takes about a tenth of a second per function here, growing faster than the count. */
function heavyInput(functions: number): string {
  const body = Array.from(
    { length: functions },
    (_, i) =>
      `function f${i}(uint256[] calldata xs, uint256 k) external pure returns (uint256 s) {` +
      ` for (uint256 j = 0; j < xs.length; j++) { s += (xs[j] * ${i + 3} + k) / (j + 1); if (s > ${1000 + i}) { s -= k ** 2; } } }`,
  ).join('\n');
  return JSON.stringify({
    language: 'Solidity',
    sources: { 'Heavy.sol': { content: `pragma solidity ^0.8.0;\ncontract Heavy {\n${body}\n}\n` } },
    settings: { viaIR: true, optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
  });
}

let chain: NodeChain;
let cacheDir: string;
let longVersion: string;
let factory: Compiled;
let factoryAddress: Address;

const request = (input: string): VerificationRequest => ({
  method: 'standard-input',
  compilerVersion: longVersion,
  input,
  contractName: null,
  constructorArgs: null,
  autodetectConstructorArgs: true,
  licenseType: null,
});

const options = (limits: Partial<VerifierOptions>): VerifierOptions => ({
  cacheDir,
  releasesUrl: null,
  compileTimeoutMs: 120_000,
  compileMemoryMb: 2048,
  maxConcurrentCompiles: 1,
  maxQueuedCompiles: 4,
  ...limits,
});

/** The compiler processes this test process has running. */
function compilerProcesses(): string[] {
  const lines = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes('compile-worker'));
}

before(async () => {
  const solc = loadSolc('solc');
  longVersion = `v${/^[^+]+\+commit\.[0-9a-f]+/.exec(solc.version())![0]}`;
  chain = await NodeChain.start();
  cacheDir = await mkdtemp(join(tmpdir(), 'sextant-verification-'));
  factory = compile(solc, { 'Factory.sol': fixture('Factory.sol') });
  factoryAddress = (await chain.deploy(`0x${factory.contracts['Factory.sol']!.Factory!.evm.bytecode.object}`)).address;
});

after(async () => {
  await chain?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

test('a compile past the time limit is killed and answered; the next one runs in a new process', async () => {
  // The whole compile takes more than a minute here, six times the limit, so that a quiet machine cannot finish it in time.
  const verifier = createVerifier(options({ compileTimeoutMs: 10_000 }));
  try {
    await verifier.compilers(); // loads the bundled build, so that the time below is the compile's
    const started = performance.now();
    const outcome = await verifier.verify(factoryAddress, request(heavyInput(600)), chain.view());
    const elapsedMs = performance.now() - started;
    assert.deepEqual(outcome, { ok: false, errors: { contract_source_code: ['The compilation took longer than 10 s and was stopped'] } });
    assert.ok(elapsedMs < 60_000, `answered after ${elapsedMs} ms`);
    assert.deepEqual(compilerProcesses(), []);

    const next = await verifier.verify(factoryAddress, request(JSON.stringify(factory.input)), chain.view());
    assert.ok(next.ok && next.contract.name === 'Factory', JSON.stringify(next));
  } finally {
    await verifier.close();
  }
  assert.deepEqual(compilerProcesses(), []);
});

test('a compile past the memory limit is killed and answered', async () => {
  const verifier = createVerifier(options({ compileMemoryMb: 50 }));
  try {
    const outcome = await verifier.verify(factoryAddress, request(JSON.stringify(factory.input)), chain.view());
    assert.deepEqual(outcome, {
      ok: false,
      errors: { contract_source_code: ['The compilation needed more than 50 MB of memory and was stopped'] },
    });
  } finally {
    await verifier.close();
  }
});

test('a compiler process that grows past its memory limit while it compiles is killed', async () => {
  const compiler = new CompilerProcess(createRequire(import.meta.url).resolve('solc/soljson.js'));
  try {
    await compiler.run({ kind: 'version' }, { timeoutMs: 120_000, memoryMb: Infinity });
    const status = await readFile(`/proc/${compiler.pid}/status`, 'utf8');
    const loadedMb = Number(/^VmRSS:\s+(\d+)/m.exec(status)![1]) / 1024;
    const limitMb = Math.ceil(loadedMb + 40);
    await assert.rejects(
      compiler.run({ kind: 'compile', input: heavyInput(40) }, { timeoutMs: 600_000, memoryMb: limitMb }),
      (err: unknown) =>
        err instanceof CompilerStoppedError && err.message === `The compilation needed more than ${limitMb} MB of memory and was stopped`,
    );
    assert.equal(compiler.alive, false);
  } finally {
    await compiler.kill();
  }
});

test('beyond the compiles running and queued, verify() is refused at once', async () => {
  const verifier = createVerifier(options({ maxConcurrentCompiles: 1, maxQueuedCompiles: 1 }));
  try {
    const input = request(JSON.stringify(factory.input));
    const first = verifier.verify(factoryAddress, input, chain.view());
    const second = verifier.verify(factoryAddress, input, chain.view());
    await assert.rejects(verifier.verify(factoryAddress, input, chain.view()), VerifierBusyError);
    const outcomes = await Promise.all([first, second]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.ok && outcome.contract.name),
      ['Factory', 'Factory'],
    );
    const later = await verifier.verify(factoryAddress, input, chain.view());
    assert.ok(later.ok);
  } finally {
    await verifier.close();
  }
});
