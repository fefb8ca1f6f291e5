import { spawn } from 'node:child_process';
import { once } from 'node:events';

const cli = new URL('../../src/cli/main.ts', import.meta.url).pathname;

export interface SextantRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the sextant CLI from source to its end (for commands that exit). */
export async function runSextant(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<SextantRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export interface RunningSextant {
  /** The API's base URL, from the line Sextant prints once it serves. */
  baseUrl: string;
  output(): string;
  /** Sends SIGTERM and waits for a clean exit; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `sextant start` from source and waits until it says where the API listens. */
export async function startSextant(env: Record<string, string>, timeoutMs = 60_000): Promise<RunningSextant> {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'start'], {
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
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
