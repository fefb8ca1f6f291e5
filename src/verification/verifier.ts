import type { Address } from '../model.js';
import { CompilePool } from './compile-pool.js';
import { bundledBuildPath, CompilerBuilds } from './compiler-builds.js';
import { failure, messages } from './messages.js';
import { prepareInput, type PreparedInput } from './prepare-input.js';
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

type Engine = typeof import('./engine.js');

class EngineVerifier implements Verifier {
  private readonly pool: CompilePool;
  private readonly builds: CompilerBuilds;
  private admitted = 0;
  private bundled: Promise<string> | null = null;
  private loaded: Promise<Engine> | null = null;

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
    const engine = await this.engine();
    const prepared = await this.inputs(engine, request);
    if (!prepared.ok) return prepared;
    const creation = await chain.creation(address);
    let outcome: VerificationOutcome = failure('contract_source_code', messages.noMatch);
    for (const input of prepared.inputs) {
      const build = await this.builds.resolve(input.compilerVersion);
      outcome =
        build instanceof Error
          ? failure('compiler_version', build.message)
          : await engine.matchInput(this.pool, build, input, { chainId: chain.chainId, address, runtimeCode, creation });
      if (outcome.ok) break;
    }
    return outcome;
  }

  private async inputs(
    engine: Engine,
    request: VerificationRequest,
  ): Promise<{ ok: true; inputs: PreparedInput[] } | (VerificationOutcome & { ok: false })> {
    if (request.method === 'sourcify') return engine.sourcifyInputs(request);
    const prepared = prepareInput(request);
    return prepared.ok ? { ok: true, inputs: [prepared.input] } : prepared;
  }

  /**
   * lib-sourcify and what it brings (ethers among them, some megabytes of heap), loaded at the first
   * verification rather than at start: the compiler list and a server that verifies nothing need none of it.
   */
  private engine(): Promise<Engine> {
    this.loaded ??= import('./engine.js').then(
      (engine) => {
        engine.routeLibraryLogs(this.options.logger);
        return engine;
      },
      (err: unknown) => {
        this.loaded = null;
        throw err;
      },
    );
    return this.loaded;
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
