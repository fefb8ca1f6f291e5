import type { Logger } from 'pino';
import type { Address, Hex, VerifiedContract } from '../model.js';

export type { VerifiedContract };

export interface ContractCreation {
  transactionHash: Hex;
  blockNumber: number;
  transactionIndex: number;
  deployer: Address;
  /** The init code: the transaction's input for a contract created by an EOA, the CREATE/CREATE2 frame's input for a factory child. */
  creationCode: Hex;
}

/** What the engine needs of the chain; the app answers it from Sextant's database, tests from the node. */
export interface ChainView {
  chainId: number;
  /** null or '0x': not a contract. */
  runtimeCode(address: Address): Promise<Hex | null>;
  /** null: unknown (then only the runtime code is matched). */
  creation(address: Address): Promise<ContractCreation | null>;
}

export type VerificationRequest =
  | {
      method: 'standard-input';
      compilerVersion: string;
      /** The standard JSON input, as text. */
      input: string;
      /** 'path:Name', 'Name' or null: try every contract. */
      contractName: string | null;
      constructorArgs: Hex | null;
      autodetectConstructorArgs: boolean;
      licenseType: string | null;
    }
  | {
      method: 'flattened-code';
      compilerVersion: string;
      sourceCode: string;
      contractName: string | null;
      optimizationEnabled: boolean;
      optimizationRuns: number;
      /** 'default' or a name. */
      evmVersion: string;
      libraries: Record<string, Address>;
      constructorArgs: Hex | null;
      autodetectConstructorArgs: boolean;
      isYul: boolean;
      licenseType: string | null;
    }
  | {
      method: 'multi-part';
      compilerVersion: string;
      evmVersion: string;
      optimizationEnabled: boolean;
      optimizationRuns: number;
      libraries: Record<string, Address>;
      /** path -> content */
      files: Record<string, string>;
      licenseType: string | null;
    }
  | {
      method: 'sourcify';
      /** metadata.json and sources, by file name */
      files: Record<string, string>;
      chosenContractIndex: number | null;
      licenseType: string | null;
    };

export type VerificationErrorField =
  'contract_source_code' | 'files' | 'interfaces' | 'compiler_version' | 'constructor_arguments' | 'name';

export type VerificationErrors = Partial<Record<VerificationErrorField, string[]>>;

export type VerificationOutcome = { ok: true; contract: VerifiedContract } | { ok: false; errors: VerificationErrors };

export interface CompilerList {
  /** Long versions, newest first, e.g. 'v0.8.37+commit.f401782d'. */
  solidity: string[];
  /** 'default' first. */
  evmVersions: string[];
}

export interface Verifier {
  verify(address: Address, request: VerificationRequest, chain: ChainView): Promise<VerificationOutcome>;
  /** What can actually be compiled now: the bundled build, the builds in the cache, the release list's builds (once it was read). */
  compilers(): Promise<CompilerList>;
  close(): Promise<void>;
}

export interface VerifierOptions {
  /** Downloaded builds (and the release list) are kept here; an air-gapped operator fills it by hand. */
  cacheDir: string;
  /** Base URL of the Solidity release list: `${releasesUrl}/bin/list.json`, builds at `${releasesUrl}/bin/<path>`; null: never download. */
  releasesUrl: string | null;
  /** A compile running longer is killed -> a clear error. */
  compileTimeoutMs: number;
  /** A compile whose process grows beyond this is killed -> a clear error. */
  compileMemoryMb: number;
  /** e.g. 1 on 2 cores */
  maxConcurrentCompiles: number;
  /** Beyond: verify() rejects with VerifierBusyError. */
  maxQueuedCompiles: number;
  logger?: Logger;
  /** How long a compiler process stays loaded after its last compile, for the next one of the same version (default 10 s). */
  compilerIdleMs?: number;
  /** The compiled outputs kept for reuse, in bytes of their JSON text (default 32 MB). */
  compileCacheBytes?: number;
}

/** verify() was called while as many verifications as the limits allow were running or waiting. */
export class VerifierBusyError extends Error {
  override name = 'VerifierBusyError';
}
