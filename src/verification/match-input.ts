import { createHash } from 'node:crypto';
import {
  DEFAULT_OUTPUT_SELECTION,
  SolidityCompilation,
  Verification,
  YulCompilation,
  type ISolidityCompiler,
  type SolidityJsonInput,
  type SolidityOutput,
  type SolidityOutputContract,
} from '@ethereum-sourcify/lib-sourcify';
import { getAddress, keccak256 } from 'viem';
import type { Address, Hex } from '../model.js';
import { CompilerFailureError, type CompilePool } from './compile-pool.js';
import type { CompilerBuild } from './compiler-builds.js';
import { CompilerStoppedError } from './compiler-process.js';
import { KnownContractChain } from './known-chain.js';
import { failure, messages } from './messages.js';
import type { PreparedInput } from './prepare-input.js';
import type { ContractCreation, VerificationOutcome, VerifiedContract } from './types.js';

export interface OnchainContract {
  chainId: number;
  address: Address;
  runtimeCode: Hex;
  creation: ContractCreation | null;
}

interface Target {
  path: string;
  name: string;
}

/**
 * The compiler as lib-sourcify calls it, for one verification: through the pool (and its cache of
 * outputs), each distinct input parsed once for all the contracts tried against it. A compiler process
 * stopped on a limit is remembered, since lib-sourcify turns it into an ordinary compile failure.
 */
class VerificationCompiler implements ISolidityCompiler {
  stopped: CompilerStoppedError | null = null;
  private readonly parsed = new Map<string, Promise<SolidityOutput>>();

  constructor(
    private readonly pool: CompilePool,
    private readonly build: CompilerBuild,
  ) {}

  compile(_version: string, input: SolidityJsonInput): Promise<SolidityOutput> {
    const text = JSON.stringify(input);
    const key = createHash('sha256').update(text).digest('hex');
    let output = this.parsed.get(key);
    if (output === undefined) {
      output = this.pool.compile(this.build.path, text).then(
        (json) => JSON.parse(json) as SolidityOutput,
        (err: unknown) => {
          if (err instanceof CompilerStoppedError) this.stopped ??= err;
          throw err;
        },
      );
      this.parsed.set(key, output);
    }
    return output;
  }
}

function compileErrors(output: SolidityOutput): string[] {
  return (output.errors ?? [])
    .filter((error) => error.severity === 'error')
    .map((error) => (error.formattedMessage ?? error.message).trim());
}

/** The contracts of an output that have code, those named by `contractName` ('path:Name' or 'Name') if given. */
function targetsOf(output: SolidityOutput, contractName: string | null): Target[] {
  const [namedPath, namedName] = contractName?.includes(':')
    ? [contractName.slice(0, contractName.lastIndexOf(':')), contractName.slice(contractName.lastIndexOf(':') + 1)]
    : [null, contractName];
  return Object.entries(output.contracts ?? {}).flatMap(([path, contracts]) =>
    Object.entries(contracts)
      .filter(([name, contract]) => (contract.evm?.deployedBytecode?.object ?? '') !== '' && (namedName === null || name === namedName))
      .filter(() => namedPath === null || path === namedPath)
      .map(([name]) => ({ path, name })),
  );
}

/** Contracts whose compiled runtime code is as long as the on-chain code first: only those can match exactly. */
function likeliestFirst(targets: Target[], output: SolidityOutput, runtimeCode: Hex): Target[] {
  const sameLength = (target: Target) =>
    output.contracts[target.path]![target.name]!.evm.deployedBytecode.object.length === runtimeCode.length - 2;
  return [...targets.filter(sameLength), ...targets.filter((target) => !sameLength(target))];
}

const sameHex = (a: string, b: string) => a.replace(/^0x/, '').toLowerCase() === b.replace(/^0x/, '').toLowerCase();

function externalLibraries(verification: Verification, input: SolidityJsonInput): VerifiedContract['externalLibraries'] {
  const byName = new Map<string, Address>();
  for (const libraries of Object.values(input.settings.libraries ?? {})) {
    for (const [name, address] of Object.entries(libraries)) byName.set(name, address.toLowerCase() as Address);
  }
  const { runtime, creation } = verification.transformations;
  for (const values of [runtime.values, creation.values]) {
    for (const [qualifiedName, address] of Object.entries(values.libraries ?? {})) {
      byName.set(qualifiedName.slice(qualifiedName.lastIndexOf(':') + 1), address.toLowerCase() as Address);
    }
  }
  return [...byName].map(([name, addressHash]) => ({ name, addressHash }));
}

function verifiedContract(
  prepared: PreparedInput,
  build: CompilerBuild,
  target: Target,
  contract: SolidityOutputContract,
  verification: Verification,
  constructorArgs: Hex | null,
  runtimeCode: Hex,
): VerifiedContract {
  const { outputSelection: _, ...settings } = prepared.input.settings;
  const optimizationEnabled = settings.optimizer?.enabled ?? false;
  const { runtimeMatch, creationMatch } = verification.status;
  return {
    name: target.name,
    filePath: target.path,
    language: prepared.language === 'Yul' ? 'yul' : 'solidity',
    compilerVersion: `v${build.longVersion}`,
    compilerSettings: settings as Record<string, unknown>,
    optimizationEnabled,
    optimizationRuns: settings.optimizer?.runs ?? (optimizationEnabled ? 200 : null),
    evmVersion: settings.evmVersion ?? 'default',
    abi: prepared.language === 'Yul' ? null : (contract.abi as unknown[]),
    sourceCode: prepared.input.sources[target.path]?.content ?? '',
    additionalSources: Object.keys(prepared.input.sources)
      .filter((path) => path !== target.path)
      .sort()
      .map((path) => ({ filePath: path, sourceCode: prepared.input.sources[path]!.content })),
    constructorArgs,
    externalLibraries: externalLibraries(verification, prepared.input),
    match: runtimeMatch === 'perfect' || creationMatch === 'perfect' ? 'full' : 'partial',
    runtimeCodeHash: keccak256(runtimeCode),
  };
}

/**
 * Compiles a prepared input and matches the on-chain contract against its contracts (the one named,
 * or each in turn until one matches), with lib-sourcify: runtime code with immutables and libraries
 * filled in, creation code with the constructor arguments found after it, metadata hash perfect or not.
 */
export async function matchInput(
  pool: CompilePool,
  build: CompilerBuild,
  prepared: PreparedInput,
  onchain: OnchainContract,
): Promise<VerificationOutcome> {
  const input: SolidityJsonInput = structuredClone(prepared.input);
  // lib-sourcify compiles with its own output selection: asking for the same here makes the first
  // compile the one it reuses.
  input.settings.outputSelection = DEFAULT_OUTPUT_SELECTION;
  const compiler = new VerificationCompiler(pool, build);
  let output: SolidityOutput;
  try {
    output = await compiler.compile(build.longVersion, input);
  } catch (err) {
    if (err instanceof CompilerStoppedError || err instanceof CompilerFailureError) return failure('contract_source_code', err.message);
    throw err;
  }
  const errors = compileErrors(output);
  if (errors.length > 0) return failure('contract_source_code', ...errors);

  const targets = targetsOf(output, prepared.contractName);
  if (targets.length === 0)
    return prepared.contractName === null ? failure('contract_source_code', messages.noMatch) : failure('name', messages.wrongName);

  const chain = new KnownContractChain(onchain.chainId, onchain.runtimeCode, onchain.creation);
  const address = getAddress(onchain.address);
  for (const target of likeliestFirst(targets, output, onchain.runtimeCode)) {
    const Compilation = prepared.language === 'Yul' ? YulCompilation : SolidityCompilation;
    let verification: Verification;
    try {
      verification = new Verification(
        new Compilation(compiler, build.longVersion, input, target),
        chain,
        address,
        onchain.creation?.transactionHash,
      );
      await verification.verify();
    } catch {
      if (compiler.stopped) return failure('contract_source_code', compiler.stopped.message);
      continue;
    }
    const detected = verification.transformations.creation.values.constructorArguments ?? null;
    const creationMatched = verification.status.creationMatch !== null;
    if (
      creationMatched &&
      prepared.constructorArgs !== null &&
      !prepared.autodetectConstructorArgs &&
      !sameHex(prepared.constructorArgs, detected ?? '0x')
    ) {
      return failure('constructor_arguments', messages.constructorArguments);
    }
    const constructorArgs = creationMatched ? (detected as Hex | null) : prepared.constructorArgs;
    const contract = output.contracts[target.path]![target.name]!;
    return { ok: true, contract: verifiedContract(prepared, build, target, contract, verification, constructorArgs, onchain.runtimeCode) };
  }
  return failure('contract_source_code', messages.noMatch);
}
