import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bundledFoundryBinary } from '../../src/demo/anvil.js';
import { demoCompilerVersion } from '../../src/demo/standard-input.js';

/**
 * The developer tools a chain's users verify contracts with (forge, cast, Hardhat with
 * hardhat-verify), installed from npm as development dependencies, run offline: neither may
 * download a compiler here, so both compile with the solc-js build Sextant bundles.
 */

const require = createRequire(import.meta.url);
const repositoryRoot = new URL('../..', import.meta.url).pathname;

export const forgeBinary = (): string => bundledFoundryBinary('forge', "install Foundry's forge");
export const castBinary = (): string => bundledFoundryBinary('cast', "install Foundry's cast");

/** The bundled compiler's version as solc's command line prints it (`0.8.37+commit.f401782d`). */
export const bundledSolcVersion = demoCompilerVersion.replace(/^v/, '');

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The command line, with the environment added to it, for failure messages. */
  command: string;
}

/** Runs a command to its end (killed after `timeoutMs`), with `env` added to PATH alone. */
export async function runTool(
  binary: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<ToolRun> {
  const child = spawn(binary, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  const envAdded = Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`);
  return { code, stdout, stderr, command: [...envAdded, binary, ...args].join(' ') };
}

/** A run's command line and output, for an assertion's message. */
export const describeRun = (run: ToolRun): string => `$ ${run.command}\nexit ${run.code}\n${run.stdout}\n${run.stderr}`;

/**
 * A HOME for forge in which svm (the compiler manager forge installs solc with) finds the bundled
 * compiler already installed, as `~/.svm/<version>/solc-<version>`: a script answering solc's
 * `--version` and `--standard-json` with solc-js. forge then neither downloads a compiler nor asks
 * for the list of releases.
 */
export async function foundryHome(home: string): Promise<void> {
  const release = bundledSolcVersion.split('+')[0]!;
  const dir = join(home, '.svm', release);
  await mkdir(dir, { recursive: true });
  const solc = join(dir, `solc-${release}`);
  const script = `#!${process.execPath}
const args = process.argv.slice(2);
if (args.includes('--version')) {
  process.stdout.write('solc, the solidity compiler commandline interface\\nVersion: ${bundledSolcVersion}.Linux.g++\\n');
} else if (args.includes('--standard-json')) {
  const chunks = [];
  process.stdin.on('data', (chunk) => chunks.push(chunk));
  process.stdin.on('end', () => process.stdout.write(require(${JSON.stringify(require.resolve('solc'))}).compile(Buffer.concat(chunks).toString())));
} else {
  process.stderr.write('this solc answers --version and --standard-json only\\n');
  process.exitCode = 1;
}
`;
  await writeFile(solc, script);
  await chmod(solc, 0o755);
}

/** A directory laid out as a project of a tool, with `files` (by relative path) written into it. */
export async function writeProject(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** Makes the repository's node_modules the project's own, so that its config file finds hardhat and its plugins. */
export async function linkNodeModules(dir: string): Promise<void> {
  await symlink(join(repositoryRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

/** Hardhat's command line script, from the hardhat package installed here. */
export function hardhatCli(): string {
  const packageJson = require.resolve('hardhat/package.json');
  const bin = (require(packageJson) as { bin: Record<string, string> }).bin.hardhat!;
  return join(dirname(packageJson), bin);
}
