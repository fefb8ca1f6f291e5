import { fork, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

/** The compiler process was stopped (too slow, too large) or died: what the user is told. */
export class CompilerStoppedError extends Error {
  override name = 'CompilerStoppedError';
}

export interface CompileLimits {
  timeoutMs: number;
  memoryMb: number;
}

const MEMORY_POLL_MS = 50;
const STDERR_KEPT = 2_000;

// From the built dist/ this module is .js beside compile-worker.js; under tsx both are .ts, and the
// forked process inherits tsx through execArgv.
const workerScript = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? './compile-worker.ts' : './compile-worker.js', import.meta.url),
);

/** The resident memory of a process in MB, from /proc; null where that cannot be read. */
async function residentMb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/**
 * One forked process holding one compiler build, asked one thing at a time. A request that runs past
 * its time limit, or during which the process grows past its memory limit, kills the process (the
 * WebAssembly heap of a build is not bounded by V8's heap limits, so its size is watched from outside).
 */
export class CompilerProcess {
  private readonly child: ChildProcess;
  private stderr = '';
  private exited = false;
  private readonly exit: Promise<void>;

  constructor(readonly build: string) {
    this.child = fork(workerScript, [build], { execArgv: process.execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-STDERR_KEPT);
    });
    this.exit = new Promise((resolve) => {
      this.child.once('exit', () => {
        this.exited = true;
        resolve();
      });
      this.child.once('error', () => {
        this.exited = true;
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  run(request: WorkerRequest, limits: CompileLimits): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      let stoppedFor: string | null = null;
      let finished = false;
      const stop = (reason: string) => {
        // A memory reading may come back after the request has finished: the process is then idle, or another's.
        if (finished) return;
        stoppedFor ??= reason;
        this.child.kill('SIGKILL');
      };
      const timer = setTimeout(
        () => stop(`The compilation took longer than ${limits.timeoutMs / 1000} s and was stopped`),
        limits.timeoutMs,
      );
      const poll = setInterval(() => {
        if (this.child.pid === undefined) return;
        void residentMb(this.child.pid).then((mb) => {
          if (mb !== null && mb > limits.memoryMb) stop(`The compilation needed more than ${limits.memoryMb} MB of memory and was stopped`);
        });
      }, MEMORY_POLL_MS);
      const done = () => {
        finished = true;
        clearTimeout(timer);
        clearInterval(poll);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        this.child.off('error', onError);
      };
      const onMessage = (reply: WorkerReply) => {
        done();
        resolve(reply);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        done();
        const detail = this.stderr.trim().split('\n').slice(-3).join(' ');
        reject(
          new CompilerStoppedError(
            stoppedFor ?? `The compiler process stopped unexpectedly (${signal ?? `exit code ${code}`})${detail ? `: ${detail}` : ''}`,
          ),
        );
      };
      const onError = (err: Error) => {
        done();
        reject(new CompilerStoppedError(`The compiler process could not run: ${err.message}`));
      };
      if (this.exited) {
        onExit(this.child.exitCode, this.child.signalCode);
        return;
      }
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.once('error', onError);
      this.child.send(request);
    });
  }

  async kill(): Promise<void> {
    if (!this.exited) this.child.kill('SIGKILL');
    await this.exit;
  }
}
