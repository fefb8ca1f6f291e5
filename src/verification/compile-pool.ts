import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { CompilerProcess, type CompileLimits } from './compiler-process.js';
import { OutputCache } from './output-cache.js';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

export interface CompilePoolOptions {
  maxConcurrent: number;
  limits: CompileLimits;
  /** How long a process stays loaded after its last request. */
  idleMs: number;
  cacheBytes: number;
  logger?: Logger;
}

const VERSION_TIMEOUT_MS = 120_000;

interface IdleProcess {
  process: CompilerProcess;
  timer: NodeJS.Timeout;
}

/** The compiler could not compile the input at all (it threw, rather than answering with errors). */
export class CompilerFailureError extends Error {
  override name = 'CompilerFailureError';
}

/**
 * Runs compilers in child processes, at most `maxConcurrent` at once (the others wait their turn),
 * keeps a process loaded for a while after its request for the next one of the same build, and keeps
 * outputs by (build, input): the same input compiled again, or while it compiles, is compiled once.
 */
export class CompilePool {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly idle = new Map<string, IdleProcess>();
  private readonly busy = new Set<CompilerProcess>();
  private readonly outputs: OutputCache;
  private readonly inFlight = new Map<string, Promise<string>>();
  private closed = false;

  constructor(private readonly options: CompilePoolOptions) {
    this.outputs = new OutputCache(options.cacheBytes);
  }

  /** The compiler's output (standard JSON, as text) for an input (as text). */
  compile(build: string, input: string): Promise<string> {
    const inputSha256 = createHash('sha256').update(input).digest('hex');
    const key = `${build}\n${inputSha256}`;
    const cached = this.outputs.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      const started = performance.now();
      pending = this.request(build, { kind: 'compile', input })
        .then((reply) => {
          if (reply.kind !== 'output') throw new CompilerFailureError(reply.kind === 'failure' ? reply.message : 'no output');
          this.options.logger?.debug(
            { build, inputSha256, ms: Math.round(performance.now() - started), outputBytes: reply.output.length },
            'compiled',
          );
          this.outputs.set(key, reply.output);
          return reply.output;
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /**
   * The long version a build reports, e.g. 0.8.37+commit.f401782d.Emscripten.clang. Loading a build is
   * no user's doing: the limits on compiles do not apply, but a generous time limit does.
   */
  async version(build: string): Promise<string> {
    const limits = { timeoutMs: Math.max(VERSION_TIMEOUT_MS, this.options.limits.timeoutMs), memoryMb: Infinity };
    const reply = await this.request(build, { kind: 'version' }, limits);
    if (reply.kind !== 'version') throw new CompilerFailureError(reply.kind === 'failure' ? reply.message : 'no version');
    return reply.version;
  }

  async close(): Promise<void> {
    this.closed = true;
    const processes = [...this.busy, ...[...this.idle.values()].map((entry) => entry.process)];
    for (const entry of this.idle.values()) clearTimeout(entry.timer);
    this.idle.clear();
    this.outputs.clear();
    await Promise.all(processes.map((process) => process.kill()));
  }

  private async request(build: string, request: WorkerRequest, limits = this.options.limits): Promise<WorkerReply> {
    await this.acquireSlot();
    let process: CompilerProcess | undefined;
    try {
      process = this.takeProcess(build);
      this.busy.add(process);
      return await process.run(request, limits);
    } finally {
      if (process) {
        this.busy.delete(process);
        this.release(process);
      }
      this.releaseSlot();
    }
  }

  private acquireSlot(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the verifier is closed'));
    if (this.running < this.options.maxConcurrent) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }

  /** A loaded process of this build if one is idle, else a new one, after unloading idle ones of other builds beyond the bound. */
  private takeProcess(build: string): CompilerProcess {
    const loaded = this.idle.get(build);
    if (loaded) {
      clearTimeout(loaded.timer);
      this.idle.delete(build);
      if (loaded.process.alive) return loaded.process;
    }
    for (const [other, entry] of this.idle) {
      if (this.idle.size + this.busy.size < this.options.maxConcurrent) break;
      clearTimeout(entry.timer);
      this.idle.delete(other);
      void entry.process.kill();
    }
    return new CompilerProcess(build);
  }

  private release(process: CompilerProcess): void {
    if (!process.alive || this.closed || this.idle.has(process.build) || this.options.idleMs <= 0) {
      void process.kill();
      return;
    }
    const timer = setTimeout(() => {
      this.idle.delete(process.build);
      void process.kill();
    }, this.options.idleMs);
    timer.unref();
    this.idle.set(process.build, { process, timer });
  }
}
