import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transpileWithImports } from '../support/transpile.js';
import { compile, loadSolc } from '../support/verification-chain.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

const runner = `
import { createVerifier } from './verification/index.js';
const { runtimeCode, request, cacheDir } = JSON.parse(process.argv[2]);
const verifier = createVerifier({
  cacheDir, releasesUrl: null, compileTimeoutMs: 120000, compileMemoryMb: 2048, maxConcurrentCompiles: 1, maxQueuedCompiles: 1,
});
const chain = { chainId: 1, runtimeCode: async () => runtimeCode, creation: async () => null };
const outcome = await verifier.verify('0x${'11'.repeat(20)}', request, chain);
await verifier.close();
console.log(JSON.stringify({ outcome, processArgs: process.execArgv }));
`;

test('built as dist/ and run by plain node (no tsx), the verifier forks its compiled worker and verifies', async () => {
  const solc = loadSolc('solc');
  const source = 'pragma solidity ^0.8.24;\ncontract Plain {\n    uint256 public x;\n    function set(uint256 v) external { x = v; }\n}\n';
  const compiled = compile(solc, { 'Plain.sol': source });
  // Inside the repository, so that the built modules find their packages in node_modules.
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const out = mkdtempSync(join(root, '.tmp', 'built-verification-'));
  try {
    writeFileSync(join(out, 'package.json'), '{ "type": "module" }');
    transpileWithImports('verification/index.ts', out);
    transpileWithImports('verification/compile-worker.ts', out);
    writeFileSync(join(out, 'run.js'), runner);
    const { NODE_OPTIONS: _, ...env } = process.env;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(out, 'run.js'),
        JSON.stringify({
          runtimeCode: `0x${compiled.contracts['Plain.sol']!.Plain!.evm.deployedBytecode.object}`,
          request: {
            method: 'flattened-code',
            compilerVersion: `v${/^[^+]+\+commit\.[0-9a-f]+/.exec(solc.version())![0]}`,
            sourceCode: source,
            contractName: 'Plain',
            optimizationEnabled: true,
            optimizationRuns: 200,
            evmVersion: 'cancun',
            libraries: {},
            constructorArgs: null,
            autodetectConstructorArgs: true,
            isYul: false,
            licenseType: null,
          },
          cacheDir: join(out, 'compilers'),
        }),
      ],
      { env, cwd: out },
    );
    const { outcome, processArgs } = JSON.parse(stdout) as {
      outcome: { ok: boolean; contract: { name: string; match: string } };
      processArgs: string[];
    };
    assert.deepEqual(processArgs, []);
    assert.equal(outcome.ok, true, stdout);
    assert.equal(outcome.contract.name, 'Plain');
    assert.equal(outcome.contract.match, 'full');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
