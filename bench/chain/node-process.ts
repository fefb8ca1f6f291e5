import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { BenchScale } from './scale.js';

export interface BenchNode {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const script = new URL('./serve.ts', import.meta.url).pathname;

/**
 * Starts the generated chain's node (bench/chain/serve.ts) as a child process and waits until it
 * listens; `revealFrom` shows the chain up to that block only, until a rate is set (see createNodeServer).
 */
export async function startBenchNode(scale: BenchScale, blocks?: number, timeoutMs = 60_000, revealFrom?: number): Promise<BenchNode> {
  const shapeArgs = [
    '--scale',
    scale,
    ...(blocks === undefined ? [] : ['--blocks', String(blocks)]),
    ...(revealFrom === undefined ? [] : ['--reveal-from', String(revealFrom)]),
  ];
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...shapeArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the bench node did not start within ${timeoutMs} ms`)), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const match = /listening (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`the bench node exited with code ${code} before listening`));
    });
  });
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
