/**
 * What a run of pages at 64 clients costs `sextant serve` (the sextant command, with each --node-flag
 * in its NODE_OPTIONS) in memory: its RSS idle
 * (4 s after it answers), then each path loaded at c=64 in turn (autocannon, after 2,000 requests to
 * warm up) and its requests/s, then the process's peak RSS (VmHWM) over the whole run. A fresh
 * process per run, so that two builds or two sets of node flags compare on the same pages.
 * Run: npm run bench:peak-memory -- <database url> [--requests-per-connection N] [--node-flag FLAG]... <path>...
 */
import { startServe } from './child-process.js';
import { loadHttp } from './load.js';
import { megabytes, readMemory } from '../index/process-memory.js';

const args = process.argv.slice(2);
/** Takes every `--name value` pair out of args. */
function take(name: string): string[] {
  const values: string[] = [];
  for (let at = args.indexOf(name); at !== -1; at = args.indexOf(name)) values.push(args.splice(at, 2)[1]!);
  return values;
}
const requestsPerConnection = Number(take('--requests-per-connection')[0] ?? 300);
const nodeFlags = take('--node-flag');
const [databaseUrl, ...paths] = args;
if (databaseUrl === undefined || paths.length === 0 || !Number.isInteger(requestsPerConnection) || requestsPerConnection < 1) {
  throw new Error('usage: npm run bench:peak-memory -- <database url> [--requests-per-connection N] [--node-flag FLAG]... <path>...');
}

const serve = await startServe(databaseUrl, nodeFlags);
try {
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  const idle = await readMemory(serve.pid);
  process.stdout.write(`node flags: ${nodeFlags.join(' ') || 'none'}; idle RSS ${megabytes(idle?.rss ?? Number.NaN)}\n`);
  for (const path of paths) {
    const figures = await loadHttp(`${serve.baseUrl}${path}`, 64, { requestsPerConnection, minimumRequests: 2_000, warmupRequests: 2_000 });
    const failures = figures.failures > 0 ? `, ${figures.failures} failures` : '';
    process.stdout.write(`${path}\n  c=64 ${figures.requestsPerSecond.toFixed(0)} req/s${failures}\n`);
  }
  const end = await readMemory(serve.pid);
  process.stdout.write(`peak RSS over the run: ${megabytes(end?.peak ?? Number.NaN)}\n`);
} finally {
  await serve.stop();
}
