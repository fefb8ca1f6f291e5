import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

const repositoryRoot = new URL('../../', import.meta.url).pathname;

export interface RunningChild {
  baseUrl: string;
  pid: number;
  /** What the child has written to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/** A TCP port of 127.0.0.1 free right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

/**
 * Starts `node <args>` (a built script, or `--import tsx` and a source file) that serves HTTP on
 * `port` of 127.0.0.1, and waits until GET `readyPath` answers 200.
 */
export function startNodeChild(
  args: string[],
  env: Record<string, string>,
  port: number,
  readyPath: string,
  timeoutMs?: number,
): Promise<RunningChild> {
  return startChild(process.execPath, args, env, port, readyPath, timeoutMs);
}

/** Starts `command <args>`, which serves HTTP on `port` of 127.0.0.1, and waits until GET `readyPath` answers 200. */
async function startChild(
  command: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  readyPath: string,
  timeoutMs = 120_000,
): Promise<RunningChild> {
  const child = spawn(command, args, {
    // tsx resolves from the working directory.
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  let exitCode: number | null | undefined;
  const exited = once(child, 'exit').then(([code]) => (exitCode = code as number | null));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${args.join(' ')} exited with code ${exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not answer ${readyPath} within ${timeoutMs} ms:\n${output}`);
    }
    const status = await fetch(`${baseUrl}${readyPath}`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      await exited;
    },
  };
}

// The sextant command, which runs the built CLI as production does (`npm run bench*` builds it first):
// tsx's loader would add its own memory and CPU.
const sextant = new URL('../../bin/sextant', import.meta.url).pathname;

/**
 * `sextant serve` on the database, with these node flags in NODE_OPTIONS (after the command's own, so
 * that they win); request logging off (LOG_LEVEL=warn) so the figures are the API's.
 */
export async function startServe(databaseUrl: string, nodeFlags: readonly string[]): Promise<RunningChild> {
  const port = await freePort();
  const env = {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...(nodeFlags.length > 0 ? { NODE_OPTIONS: nodeFlags.join(' ') } : {}),
  };
  return startChild(sextant, ['serve'], env, port, '/health');
}
