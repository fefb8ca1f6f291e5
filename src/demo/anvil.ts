import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';

export interface AnvilNode {
  rpcUrl: string;
  wsUrl: string;
  pid: number;
  stop(): Promise<void>;
}

export interface StartAnvilOptions {
  /** Mine a block every N seconds instead of one block per transaction. */
  blockTimeSeconds?: number;
  /** The fork the chain runs: cancun unless given (prague has set-code transactions). */
  hardfork?: 'cancun' | 'prague';
  /** Keep the state of every block, as an archive node does (a short chain only: anvil keeps them in memory). */
  archive?: boolean;
  extraArgs?: string[];
}

const STARTUP_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
/** The npm platform suffix of Foundry's binary packages (`@foundry-rs/<tool>-<suffix>`), by Node's platform-arch. */
const PLATFORM_SUFFIXES: Record<string, string> = {
  'linux-x64': 'linux-amd64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-amd64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-amd64',
};

/**
 * The path of a Foundry tool's binary from its npm package for this platform (`@foundry-rs/anvil-linux-amd64`,
 * say); `otherwise` says what to do when there is none.
 */
export function bundledFoundryBinary(tool: 'anvil' | 'forge' | 'cast', otherwise: string): string {
  const platform = `${process.platform}-${process.arch}`;
  const suffix = PLATFORM_SUFFIXES[platform];
  if (!suffix) throw new Error(`no bundled ${tool} for ${platform}; ${otherwise}`);
  const packageName = `@foundry-rs/${tool}-${suffix}`;
  const binaryName = process.platform === 'win32' ? `${tool}.exe` : tool;
  try {
    return createRequire(import.meta.url).resolve(`${packageName}/bin/${binaryName}`);
  } catch {
    throw new Error(`${packageName} is not installed; run \`npm install\` (optional dependencies enabled) or ${otherwise}`);
  }
}

function resolveAnvilBinary(): string {
  const override = process.env.ANVIL_BIN;
  if (override) {
    try {
      accessSync(override, constants.X_OK);
    } catch {
      throw new Error(
        `ANVIL_BIN=${override} is not an executable file; point ANVIL_BIN to an anvil binary or unset it to use the bundled one`,
      );
    }
    return override;
  }
  return bundledFoundryBinary('anvil', "install Foundry's anvil and set ANVIL_BIN to its path");
}

export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilNode> {
  const binary = resolveAnvilBinary();
  // OpenZeppelin 5 needs Cancun opcodes, and later forks slow every block down as the chain grows.
  // --prune-history keeps no past states (so no multi-GB snapshot files): debug_trace* then fails
  // for mined blocks, while trace_block, recorded at mining time, keeps working.
  const args = ['--host', '127.0.0.1', '--port', '0', '--hardfork', options.hardfork ?? 'cancun'];
  if (options.archive !== true) args.push('--prune-history');
  if (options.blockTimeSeconds !== undefined) args.push('--block-time', String(options.blockTimeSeconds));
  args.push(...(options.extraArgs ?? []));

  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  trackUntilExit(child);
  const port = await waitForListeningPort(child, binary);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  // The pipes must keep draining, or anvil blocks once its per-request log fills them.
  child.stdout?.resume();
  child.stderr?.resume();

  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: () => stopChild(child, exited),
  };
}

function waitForListeningPort(child: ChildProcess, binary: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const fail = (message: string) => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(message));
    };
    const onStdout = (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(stdout);
      if (match?.[1]) {
        cleanup();
        resolve(Number(match[1]));
      }
    };
    const onStderr = (chunk: Buffer) => {
      stderr += chunk.toString();
    };
    const onError = (err: Error) => {
      fail(`cannot run anvil at ${binary}: ${err.message}; set ANVIL_BIN to an anvil binary or reinstall @foundry-rs/anvil`);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      const reason = mainComplaint(stderr) ?? mainComplaint(stdout) ?? 'no output';
      fail(
        `anvil (${binary}) exited with ${signal ?? `code ${code}`} before listening: ${reason}; check the arguments and that the binary runs on this system`,
      );
    };
    const timer = setTimeout(() => {
      fail(
        `anvil (${binary}) did not report a listening address within ${STARTUP_TIMEOUT_MS / 1000} s; check that it runs with \`${binary} --version\``,
      );
    }, STARTUP_TIMEOUT_MS);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onStdout);
      child.stderr?.off('data', onStderr);
      child.off('error', onError);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onStdout);
    child.stderr?.on('data', onStderr);
    child.once('error', onError);
    child.once('exit', onExit);
  });
}

/** The line of anvil's output that most likely says what went wrong. */
function mainComplaint(output: string): string | undefined {
  const lines = output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.find((line) => /error/i.test(line)) ?? lines[0];
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS);
    });
    if (await Promise.race([exited.then(() => false), timedOut])) child.kill('SIGKILL');
    clearTimeout(timer);
  }
  await exited;
}

// Children still running when this process ends are killed, so a crashed run leaves no anvil behind.
const runningChildren = new Set<ChildProcess>();
const TERMINATING_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function trackUntilExit(child: ChildProcess): void {
  if (runningChildren.size === 0) {
    process.on('exit', killRunningChildren);
    for (const signal of TERMINATING_SIGNALS) process.on(signal, onTerminatingSignal);
  }
  runningChildren.add(child);
  const untrack = () => {
    runningChildren.delete(child);
    if (runningChildren.size === 0) {
      process.off('exit', killRunningChildren);
      for (const signal of TERMINATING_SIGNALS) process.off(signal, onTerminatingSignal);
    }
  };
  child.once('exit', untrack);
  child.on('error', () => {
    if (child.pid === undefined) untrack();
  });
}

function killRunningChildren(): void {
  for (const child of runningChildren) child.kill('SIGKILL');
}

// Listening for a signal disables Node's default of exiting on it. When no other listener
// takes charge of shutting down, restore that default after killing the children.
function onTerminatingSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killRunningChildren();
  process.off(signal, onTerminatingSignal);
  process.kill(process.pid, signal);
}
