import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_OUTPUT_SELECTION } from '@ethereum-sourcify/lib-sourcify';
import { pino } from 'pino';
import { decodeEventLog, encodeAbiParameters, encodeFunctionData, keccak256, type Address, type Hex } from 'viem';
import { createVerifier, type VerificationRequest, type Verifier } from '../../src/verification/index.js';
import {
  compile,
  deployer,
  fixture,
  link,
  loadSolc,
  NodeChain,
  testSettings,
  type Compiled,
  type SolcJs,
} from '../support/verification-chain.js';

const vaultArgs = encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], ['savings', 250n]);
const vaultSource = fixture('Vault.sol');
const factorySource = fixture('Factory.sol');

let solc: SolcJs;
let longVersion: string;
let chain: NodeChain;
let verifier: Verifier;
let cacheDir: string;
let vault: Compiled;
let fees: Address;
let vaultAddress: Address;
let variantAddress: Address;
let factory: Compiled;
let factoryAddress: Address;
let childAddress: Address;
let child2Address: Address;

const standardInput = (
  compiled: Compiled,
  fields: Partial<VerificationRequest & { method: 'standard-input' }> = {},
): VerificationRequest & { method: 'standard-input' } => ({
  method: 'standard-input',
  compilerVersion: longVersion,
  input: JSON.stringify(compiled.input),
  contractName: null,
  constructorArgs: null,
  autodetectConstructorArgs: true,
  licenseType: null,
  ...fields,
});

async function deployVault(compiled: Compiled): Promise<Address> {
  const initCode = link(compiled.contracts['Vault.sol']!.Vault!.evm.bytecode.object, { 'Vault.sol:Fees': fees });
  return (await chain.deploy(`${initCode}${vaultArgs.slice(2)}`)).address;
}

async function createChild(data: Hex): Promise<Address> {
  const { transactionHash, logs } = await chain.call(factoryAddress, data);
  const created = decodeEventLog({ abi: factory.contracts['Factory.sol']!.Factory!.abi, ...logs[0]! });
  const address = (created.args as unknown as { child: Address }).child;
  chain.created(address, transactionHash);
  return address;
}

before(async () => {
  solc = loadSolc('solc');
  longVersion = `v${/^[^+]+\+commit\.[0-9a-f]+/.exec(solc.version())![0]}`;
  chain = await NodeChain.start();
  cacheDir = await mkdtemp(join(tmpdir(), 'sextant-verification-'));
  verifier = createVerifier({
    cacheDir,
    releasesUrl: null,
    compileTimeoutMs: 120_000,
    compileMemoryMb: 2048,
    maxConcurrentCompiles: 1,
    maxQueuedCompiles: 8,
  });

  vault = compile(solc, { 'Vault.sol': vaultSource });
  fees = (await chain.deploy(`0x${vault.contracts['Vault.sol']!.Fees!.evm.bytecode.object}`)).address;
  vaultAddress = await deployVault(vault);
  // The same contract but for a comment: the same code, another metadata hash.
  variantAddress = await deployVault(compile(solc, { 'Vault.sol': vaultSource.replace('/// A vault with', '/// A vault, with') }));

  factory = compile(solc, { 'Factory.sol': factorySource });
  factoryAddress = (await chain.deploy(`0x${factory.contracts['Factory.sol']!.Factory!.evm.bytecode.object}`)).address;
  const factoryAbi = factory.contracts['Factory.sol']!.Factory!.abi;
  childAddress = await createChild(encodeFunctionData({ abi: factoryAbi, functionName: 'create', args: [7n] }));
  child2Address = await createChild(encodeFunctionData({ abi: factoryAbi, functionName: 'create2', args: [8n, `0x${'ab'.repeat(32)}`] }));
});

after(async () => {
  await verifier?.close();
  await chain?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

async function verified(address: Address, request: VerificationRequest) {
  const outcome = await verifier.verify(address, request, chain.view());
  assert.ok(outcome.ok, `expected a verification, got ${JSON.stringify(outcome)}`);
  return outcome.contract;
}

async function refused(address: Address, request: VerificationRequest) {
  const outcome = await verifier.verify(address, request, chain.view());
  assert.ok(!outcome.ok, `expected errors, got a verification of ${outcome.ok && outcome.contract.name}`);
  return outcome.errors;
}

describe('each method verifies the vault (constructor arguments, immutables, linked library, event)', () => {
  test('standard-input, named', async () => {
    const contract = await verified(vaultAddress, standardInput(vault, { contractName: 'Vault.sol:Vault' }));
    const runtimeCode = await chain.client.request<Hex>('eth_getCode', [vaultAddress, 'latest']);
    assert.equal(contract.name, 'Vault');
    assert.equal(contract.filePath, 'Vault.sol');
    assert.equal(contract.language, 'solidity');
    assert.equal(contract.compilerVersion, longVersion);
    assert.equal(contract.match, 'full');
    assert.equal(contract.constructorArgs, vaultArgs);
    assert.deepEqual(contract.externalLibraries, [{ name: 'Fees', addressHash: fees.toLowerCase() }]);
    assert.equal(contract.runtimeCodeHash, keccak256(runtimeCode));
    assert.deepEqual(contract.abi, vault.contracts['Vault.sol']!.Vault!.abi);
    assert.ok(
      contract.abi!.some(
        (item) => (item as { type: string; name?: string }).type === 'event' && (item as { name: string }).name === 'Deposited',
      ),
    );
    assert.equal(contract.optimizationEnabled, true);
    assert.equal(contract.optimizationRuns, 200);
    assert.equal(contract.evmVersion, 'cancun');
    const { outputSelection: _, ...settings } = testSettings();
    assert.deepEqual(contract.compilerSettings, settings);
    assert.equal(contract.sourceCode, vaultSource);
    assert.deepEqual(contract.additionalSources, []);
  });

  test('standard-input with no name tries every contract', async () => {
    const contract = await verified(vaultAddress, standardInput(vault));
    assert.equal(contract.name, 'Vault');
    assert.equal(contract.match, 'full');
  });

  test('standard-input with the right constructor arguments, not autodetected', async () => {
    const contract = await verified(vaultAddress, standardInput(vault, { constructorArgs: vaultArgs, autodetectConstructorArgs: false }));
    assert.equal(contract.constructorArgs, vaultArgs);
  });

  test('flattened-code, the library left to link', async () => {
    const request = {
      method: 'flattened-code',
      compilerVersion: longVersion,
      sourceCode: vaultSource,
      contractName: 'Vault',
      optimizationEnabled: true,
      optimizationRuns: 200,
      evmVersion: 'cancun',
      libraries: {},
      constructorArgs: null,
      autodetectConstructorArgs: true,
      isYul: false,
      licenseType: 'mit',
    } as const;
    const contract = await verified(vaultAddress, request);
    assert.equal(contract.name, 'Vault');
    // The file is named after the contract, as it was compiled for deployment: the metadata is the same.
    assert.equal(contract.match, 'full');
    assert.equal(contract.constructorArgs, vaultArgs);
    assert.deepEqual(contract.externalLibraries, [{ name: 'Fees', addressHash: fees.toLowerCase() }]);

    const unnamed = await verified(vaultAddress, { ...request, contractName: null });
    assert.equal(unnamed.name, 'Vault');
  });

  test('flattened-code with the library given: linked by the compiler, the metadata differs (partial)', async () => {
    const contract = await verified(vaultAddress, {
      method: 'flattened-code',
      compilerVersion: longVersion,
      sourceCode: vaultSource,
      contractName: 'Vault',
      optimizationEnabled: true,
      optimizationRuns: 200,
      evmVersion: 'cancun',
      libraries: { Fees: fees },
      constructorArgs: null,
      autodetectConstructorArgs: true,
      isYul: false,
      licenseType: null,
    });
    assert.equal(contract.match, 'partial');
    assert.deepEqual(contract.externalLibraries, [{ name: 'Fees', addressHash: fees.toLowerCase() }]);
    assert.equal(contract.constructorArgs, vaultArgs);
  });

  test('multi-part (no name: every contract is tried)', async () => {
    const contract = await verified(vaultAddress, {
      method: 'multi-part',
      compilerVersion: longVersion,
      evmVersion: 'cancun',
      optimizationEnabled: true,
      optimizationRuns: 200,
      libraries: {},
      files: { 'Vault.sol': vaultSource },
      licenseType: null,
    });
    assert.equal(contract.name, 'Vault');
    assert.equal(contract.match, 'full');
    assert.equal(contract.constructorArgs, vaultArgs);
    assert.deepEqual(contract.externalLibraries, [{ name: 'Fees', addressHash: fees.toLowerCase() }]);
  });

  test('sourcify: metadata.json and its source', async () => {
    const contract = await verified(vaultAddress, {
      method: 'sourcify',
      files: { 'metadata.json': vault.contracts['Vault.sol']!.Vault!.metadata, 'Vault.sol': vaultSource },
      chosenContractIndex: null,
      licenseType: null,
    });
    assert.equal(contract.name, 'Vault');
    assert.equal(contract.match, 'full');
    assert.equal(contract.compilerVersion, longVersion);
    assert.equal(contract.constructorArgs, vaultArgs);
    assert.deepEqual(contract.externalLibraries, [{ name: 'Fees', addressHash: fees.toLowerCase() }]);
  });
});

test('flattened-code of a Yul object: no ABI, no metadata hash (partial at best)', async () => {
  const source = fixture('Counter.yul');
  const input = { language: 'Yul', sources: { 'Counter.yul': { content: source } }, settings: testSettings() };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as { contracts: Compiled['contracts'] };
  const { address } = await chain.deploy(`0x${output.contracts['Counter.yul']!.Counter!.evm.bytecode.object}`);
  const contract = await verified(address, {
    method: 'flattened-code',
    compilerVersion: longVersion,
    sourceCode: source,
    contractName: 'Counter',
    optimizationEnabled: true,
    optimizationRuns: 200,
    evmVersion: 'cancun',
    libraries: {},
    constructorArgs: null,
    autodetectConstructorArgs: true,
    isYul: true,
    licenseType: null,
  });
  assert.equal(contract.name, 'Counter');
  assert.equal(contract.filePath, 'Counter.yul');
  assert.equal(contract.language, 'yul');
  assert.equal(contract.abi, null);
  assert.equal(contract.match, 'partial');
  assert.equal(contract.constructorArgs, null);
});

test('a contract deployed from a source that differs in a comment is a partial match', async () => {
  const contract = await verified(variantAddress, standardInput(vault, { contractName: 'Vault' }));
  assert.equal(contract.match, 'partial');
  assert.equal(contract.constructorArgs, vaultArgs);
});

describe('contracts created by a contract', () => {
  test('the factory itself, whose code holds the child creation code', async () => {
    const contract = await verified(factoryAddress, standardInput(factory));
    assert.equal(contract.name, 'Factory');
    assert.equal(contract.match, 'full');
    assert.equal(contract.constructorArgs, null);
  });

  test('a child created with CREATE', async () => {
    const contract = await verified(childAddress, standardInput(factory));
    assert.equal(contract.name, 'Child');
    assert.equal(contract.match, 'full');
    assert.equal(contract.constructorArgs, encodeAbiParameters([{ type: 'uint256' }], [7n]));
  });

  test('a child created with CREATE2', async () => {
    const contract = await verified(child2Address, standardInput(factory, { contractName: 'Factory.sol:Child' }));
    assert.equal(contract.name, 'Child');
    assert.equal(contract.constructorArgs, encodeAbiParameters([{ type: 'uint256' }], [8n]));
  });
});

test('an input is compiled once for all the contracts tried against it and all the verifications that give it', async () => {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
  const counting = createVerifier({
    cacheDir,
    releasesUrl: null,
    compileTimeoutMs: 120_000,
    compileMemoryMb: 2048,
    maxConcurrentCompiles: 1,
    maxQueuedCompiles: 1,
    logger,
  });
  const compiles = () => lines.filter((line) => (JSON.parse(line) as { msg: string }).msg === 'compiled').length;
  const name = async (address: Address) => {
    const outcome = await counting.verify(address, standardInput(factory), chain.view());
    return outcome.ok ? outcome.contract.name : JSON.stringify(outcome.errors);
  };
  try {
    assert.equal(await name(childAddress), 'Child');
    assert.equal(compiles(), 1);
    // The factory's code holds two metadata hashes (its own, the child's): they are told apart by a
    // compile of the sources edited, once.
    assert.equal(await name(factoryAddress), 'Factory');
    assert.equal(compiles(), 2);
    assert.equal(await name(child2Address), 'Child');
    assert.equal(await name(factoryAddress), 'Factory');
    // Both contracts of the output tried in vain against the vault: no compile more.
    assert.equal(await name(vaultAddress), JSON.stringify({ contract_source_code: ['No contract could be verified with provided data'] }));
    assert.equal(compiles(), 2);
  } finally {
    await counting.close();
  }
});

describe('what does not verify is answered by field, as the form shows it', () => {
  test('another source', async () => {
    assert.deepEqual(await refused(vaultAddress, standardInput(factory)), {
      contract_source_code: ['No contract could be verified with provided data'],
    });
  });

  test('a source that does not compile: the compiler messages', async () => {
    const broken = {
      ...vault,
      input: { ...vault.input, sources: { 'Vault.sol': { content: vaultSource.replace('emit Deposited', 'emit Deposited(') } } },
    };
    const errors = await refused(vaultAddress, standardInput(broken));
    assert.equal(errors.contract_source_code?.length, 1);
    assert.match(errors.contract_source_code![0]!, /^ParserError: .*\n\s+--> Vault\.sol:/);
  });

  test('an unknown compiler version, and one that is not a version', async () => {
    assert.deepEqual(await refused(vaultAddress, standardInput(vault, { compilerVersion: 'v0.8.99+commit.deadbeef' })), {
      compiler_version: ['Compiler version not found: v0.8.99+commit.deadbeef'],
    });
    assert.deepEqual(await refused(vaultAddress, standardInput(vault, { compilerVersion: 'latest-please' })), {
      compiler_version: ['Invalid compiler version: latest-please'],
    });
  });

  test('constructor arguments given, not autodetected, and wrong', async () => {
    const wrong = encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], ['savings', 251n]);
    assert.deepEqual(await refused(vaultAddress, standardInput(vault, { constructorArgs: wrong, autodetectConstructorArgs: false })), {
      constructor_arguments: ['Constructor arguments do not match, please try again.'],
    });
  });

  test('a contract name the sources do not have', async () => {
    assert.deepEqual(await refused(vaultAddress, standardInput(vault, { contractName: 'Vault.sol:Safe' })), {
      name: ['Wrong contract name, please try again.'],
    });
  });

  test('a standard input that is not JSON', async () => {
    assert.deepEqual(await refused(vaultAddress, standardInput(vault, { input: '{"language": "Solidity", ' })), {
      files: ['Invalid JSON file.'],
    });
  });

  test('a metadata.json without its source: nothing is fetched', async () => {
    const errors = await refused(vaultAddress, {
      method: 'sourcify',
      files: { 'metadata.json': vault.contracts['Vault.sol']!.Vault!.metadata },
      chosenContractIndex: null,
      licenseType: null,
    });
    assert.deepEqual(errors, { files: ['Missing source: Vault.sol'] });
  });

  test('an address without code', async () => {
    assert.deepEqual(await refused(deployer, standardInput(vault)), { contract_source_code: ['The address is not a smart contract'] });
  });
});

test('the compilers offered: the bundled one, with the EVM versions', async () => {
  const list = await verifier.compilers();
  assert.deepEqual(list.solidity, [longVersion]);
  assert.equal(list.evmVersions[0], 'default');
  assert.ok(list.evmVersions.includes('cancun'));
});

test('the time to verify against a bare compile of the same input (the floor)', async (t) => {
  // A source no verification above compiled, so that the verifier's cache does not answer it.
  const source = vaultSource.replace('/// A vault with', '/// A measured vault with');
  const compiled = compile(solc, { 'Vault.sol': source });
  const address = await deployVault(compiled);
  const input = JSON.stringify({ ...compiled.input, settings: { ...compiled.input.settings, outputSelection: DEFAULT_OUTPUT_SELECTION } });
  let started = performance.now();
  solc.compile(input);
  const bareMs = performance.now() - started;

  started = performance.now();
  const warm = await verified(address, standardInput(compiled, { contractName: 'Vault.sol:Vault' }));
  const warmMs = performance.now() - started;

  const cold = createVerifier({
    cacheDir,
    releasesUrl: null,
    compileTimeoutMs: 120_000,
    compileMemoryMb: 2048,
    maxConcurrentCompiles: 1,
    maxQueuedCompiles: 1,
  });
  started = performance.now();
  const outcome = await cold.verify(address, standardInput(compiled, { contractName: 'Vault.sol:Vault' }), chain.view());
  const coldMs = performance.now() - started;
  await cold.close();

  assert.equal(warm.match, 'full');
  assert.ok(outcome.ok);
  t.diagnostic(`bare compile in this process (compiler loaded): ${bareMs.toFixed(0)} ms`);
  t.diagnostic(`verify, compiler process already loaded: ${warmMs.toFixed(0)} ms (${(warmMs / bareMs).toFixed(2)} x the floor)`);
  t.diagnostic(
    `verify, new verifier (process started, compiler loaded): ${coldMs.toFixed(0)} ms (${(coldMs / bareMs).toFixed(2)} x the floor)`,
  );
});
