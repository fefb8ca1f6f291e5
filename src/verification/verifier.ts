import { setLibSourcifyLogger } from '@ethereum-sourcify/lib-sourcify';
import type { Logger } from 'pino';
import type { Address } from '../model.js';
import { CompilePool } from './compile-pool.js';
import { bundledBuildPath, CompilerBuilds } from './compiler-builds.js';
import { matchInput } from './match-input.js';
import { failure, messages } from './messages.js';
import { prepareInput, type PreparedInput } from './prepare-input.js';
import { sourcifyInputs } from './sourcify-input.js';
import {
  VerifierBusyError,
  type ChainView,
  type CompilerList,
  type VerificationOutcome,
  type VerificationRequest,
  type Verifier,
  type VerifierOptions,
} from './types.js';

const DEFAULT_COMPILER_IDLE_MS = 10_000;
const DEFAULT_COMPILE_CACHE_BYTES = 32 * 1024 * 1024;

/** The EVM versions the form offers, as Blockscout lists them: 'default', then the newest first. */
const EVM_VERSIONS = [
  'default',
  'osaka',
  'prague',
  'cancun',
  'shanghai',
  'paris',
  'london',
  'berlin',
  'istanbul',
  'petersburg',
  'constantinople',
  'byzantium',
  'spuriousDragon',
  'tangerineWhistle',
  'homestead',
];

/** lib-sourcify logs through one process-wide logger: its words go to ours at debug level (warnings included: "no match" is one). */
function routeLibraryLogs(logger: Logger | undefined): void {
  setLibSourcifyLogger({
    logLevel: 1,
    setLevel(level: number) {
      this.logLevel = level;
    },
    log(_level: number, message: string, metadata?: unknown) {
      logger?.debug({ lib: 'lib-sourcify', ...(typeof metadata === 'object' ? metadata : {}) }, message);
    },
  });
}

class EngineVerifier implements Verifier {
  private readonly pool: CompilePool;
  private readonly builds: CompilerBuilds;
  private admitted = 0;
  private bundled: Promise<string> | null = null;

  constructor(private readonly options: VerifierOptions) {
    this.pool = new CompilePool({
      maxConcurrent: options.maxConcurrentCompiles,
      limits: { timeoutMs: options.compileTimeoutMs, memoryMb: options.compileMemoryMb },
      idleMs: options.compilerIdleMs ?? DEFAULT_COMPILER_IDLE_MS,
      cacheBytes: options.compileCacheBytes ?? DEFAULT_COMPILE_CACHE_BYTES,
      logger: options.logger,
    });
    this.builds = new CompilerBuilds({
      cacheDir: options.cacheDir,
      releasesUrl: options.releasesUrl?.replace(/\/+$/, '') ?? null,
      bundledVersion: () => this.bundledVersion(),
      logger: options.logger,
    });
    routeLibraryLogs(options.logger);
  }

  async verify(address: Address, request: VerificationRequest, chain: ChainView): Promise<VerificationOutcome> {
    if (this.admitted >= this.options.maxConcurrentCompiles + this.options.maxQueuedCompiles) {
      throw new VerifierBusyError(`${this.admitted} verifications are running or waiting; try again later`);
    }
    this.admitted += 1;
    try {
      return await this.run(address, request, chain);
    } finally {
      this.admitted -= 1;
    }
  }

  async compilers(): Promise<CompilerList> {
    return { solidity: await this.builds.versions(), evmVersions: [...EVM_VERSIONS] };
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async run(address: Address, request: VerificationRequest, chain: ChainView): Promise<VerificationOutcome> {
    const runtimeCode = await chain.runtimeCode(address);
    if (runtimeCode === null || runtimeCode === '0x') return failure('contract_source_code', messages.notAContract);
    const prepared = await this.inputs(request);
    if (!prepared.ok) return prepared;
    const creation = await chain.creation(address);
    let outcome: VerificationOutcome = failure('contract_source_code', messages.noMatch);
    for (const input of prepared.inputs) {
      const build = await this.builds.resolve(input.compilerVersion);
      outcome =
        build instanceof Error
          ? failure('compiler_version', build.message)
          : await matchInput(this.pool, build, input, { chainId: chain.chainId, address, runtimeCode, creation });
      if (outcome.ok) break;
    }
    return outcome;
  }

  private async inputs(
    request: VerificationRequest,
  ): Promise<{ ok: true; inputs: PreparedInput[] } | (VerificationOutcome & { ok: false })> {
    if (request.method === 'sourcify') return sourcifyInputs(request);
    const prepared = prepareInput(request);
    return prepared.ok ? { ok: true, inputs: [prepared.input] } : prepared;
  }

  /** The version the bundled build reports, asked of it once. */
  private bundledVersion(): Promise<string> {
    this.bundled ??= this.pool.version(bundledBuildPath).catch((err: unknown) => {
      this.bundled = null;
      throw err;
    });
    return this.bundled;
  }
}

export function createVerifier(options: VerifierOptions): Verifier {
  return new EngineVerifier(options);
}
