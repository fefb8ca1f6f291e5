import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import type { Abi, Hex } from 'viem';

/** test/fixtures/contracts/proxies/*.sol compiled with solc-js, OpenZeppelin's imports from npm. */

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

const sourcesDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'contracts', 'proxies');
const openZeppelinDir = dirname(createRequire(import.meta.url).resolve('@openzeppelin/contracts/package.json'));
const openZeppelin = '@openzeppelin/contracts/';

function resolveImport(path: string): { contents: string } | { error: string } {
  if (!path.startsWith(openZeppelin)) return { error: `unsupported import ${path}` };
  return { contents: readFileSync(join(openZeppelinDir, path.slice(openZeppelin.length)), 'utf8') };
}

/** A standard JSON input of these sources, with the settings the tests deploy them with. */
function standardInput(sources: Record<string, { content: string }>) {
  return {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
}

function compile(input: ReturnType<typeof standardInput>): Record<string, CompiledContract> {
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: resolveImport })) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contracts: Record<string, CompiledContract> = {};
  for (const file of Object.keys(output.contracts))
    for (const [name, contract] of Object.entries(output.contracts[file]!))
      contracts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  return contracts;
}

export function compileProxyContracts(): Record<string, CompiledContract> {
  const sources = Object.fromEntries(
    readdirSync(sourcesDir)
      .filter((name) => name.endsWith('.sol'))
      .map((name) => [name, { content: readFileSync(join(sourcesDir, name), 'utf8') }]),
  );
  return compile(standardInput(sources));
}

/**
 * HandProxies.sol alone (it imports nothing), compiled, and its standard JSON input: what a test
 * deploys a proxy from and then submits for verification (contract names "HandProxies.sol:…").
 */
export function compileHandProxies(): { contracts: Record<string, CompiledContract>; input: string } {
  const input = standardInput({ 'HandProxies.sol': { content: readFileSync(join(sourcesDir, 'HandProxies.sol'), 'utf8') } });
  return { contracts: compile(input), input: JSON.stringify(input) };
}
