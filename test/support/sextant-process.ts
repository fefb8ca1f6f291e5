import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { waitFor } from './wait.js';

const cli = new URL('../../src/cli/main.ts', import.meta.url).pathname;

export interface SextantRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A sextant CLI process started from source. */
export interface SextantChild {
  /** Everything it printed so far, stdout and stderr as they came. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves to the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Sends SIGKILL: the process ends at once, wherever it is, as on a crash or an OOM kill. */
  kill(): Promise<number | null>;
  /** Sends SIGTERM, a clean shutdown; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the sextant CLI from source with `args`, in an environment of `env` alone (plus PATH and HOME). */
export function spawnSextant(args: string[], env: Record<string, string>): SextantChild {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
    output += chunk;
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    kill() {
      child.kill('SIGKILL');
      return exited;
    },
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs the sextant CLI from source to its end (for commands that exit). */
export async function runSextant(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<SextantRun> {
  const child = spawnSextant(args, env);
  const timer = setTimeout(() => void child.kill(), timeoutMs);
  const code = await child.exited;
  clearTimeout(timer);
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

export interface RunningSextant {
  /** The API's base URL, from the line Sextant prints once it serves. */
  baseUrl: string;
  pid: number;
  output(): string;
  /** Sends SIGTERM and waits for a clean exit; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `sextant start` (or `serve`) from source and waits until it says where the API listens. */
export async function startSextant(
  env: Record<string, string>,
  timeoutMs = 120_000,
  command: 'start' | 'serve' = 'start',
): Promise<RunningSextant> {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, command], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sextant did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /API listening on (http:\/\/[^\s;"]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`sextant exited with code ${code} before serving:\n${output}`));
    });
  });
  return {
    baseUrl,
    pid: child.pid!,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * Runs `sextant start` until `workLeft` names no work (`sextant index` ends once blocks and traces
 * are in, before the token stages are done), then stops it. A run that does not settle names the
 * work it left.
 */
export async function runUntilSettled(env: Record<string, string>, workLeft: () => Promise<string[]>, timeoutMs = 240_000): Promise<void> {
  const sextant = await startSextant(env, timeoutMs);
  let left: string[] = [];
  const waited = await waitFor(
    async () => (left = await workLeft()).length === 0,
    () => `sextant settled; work left: ${left.join(', ')}\n${sextant.output()}`,
    { timeoutMs, intervalMs: 100 },
  ).then(
    () => null,
    (error: unknown) => ({ error }),
  );
  const code = await sextant.stop();
  if (waited !== null) throw waited.error;
  if (code !== 0) throw new Error(`sextant exited with code ${code}:\n${sextant.output()}`);
}
