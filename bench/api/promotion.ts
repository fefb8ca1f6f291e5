/**
 * What each request of a page leaves to the garbage collector: `sextant serve` (the built CLI) with
 * V8's `--trace-gc-nvp`, each path asked 100 times to warm up, then `--requests` times at one client;
 * from the young generation's collections meanwhile, the bytes allocated and the bytes promoted to
 * the old generation per request, and the full collections (mark-compact) they led to.
 * Run: npm run bench:promotion -- <database url> [--requests N] <path>...
 */
import { startServe } from './child-process.js';
import { loadHttp } from './load.js';

const args = process.argv.slice(2);
const requestsAt = args.indexOf('--requests');
const requests = requestsAt === -1 ? 1_000 : Number(args.splice(requestsAt, 2)[1]);
const [databaseUrl, ...paths] = args;
if (databaseUrl === undefined || paths.length === 0 || !Number.isInteger(requests) || requests < 1) {
  throw new Error('usage: npm run bench:promotion -- <database url> [--requests N] <path>...');
}

const serve = await startServe(databaseUrl, ['--import', new URL('./trace-gc-nvp.mjs', import.meta.url).pathname]);

/** A number a --trace-gc-nvp line gives as `name=value`. */
const traced = (line: string, name: string) => Number(new RegExp(` ${name}=(\\d+)`).exec(line)?.[1] ?? 0);
const kilobytesPerRequest = (bytes: number) => (bytes / 1024 / requests).toFixed(1);

try {
  process.stdout.write(`${requests} requests a path at c=1 after 100 to warm up\n`);
  for (const path of paths) {
    const url = `${serve.baseUrl}${path}`;
    await loadHttp(url, 1, { warmupRequests: 100, minimumRequests: 1, requestsPerConnection: 1 });
    const from = serve.output().length;
    const figures = await loadHttp(url, 1, { warmupRequests: 1, minimumRequests: requests, requestsPerConnection: requests });
    const lines = serve.output().slice(from).split('\n');
    const scavenges = lines.filter((line) => line.includes(' gc=s '));
    const fullCollections = lines.filter((line) => line.includes(' gc=mc ')).length;
    const allocated = scavenges.reduce((sum, line) => sum + traced(line, 'allocated'), 0);
    const promoted = scavenges.reduce((sum, line) => sum + traced(line, 'promoted'), 0);
    process.stdout.write(
      `${path}\n  allocated ${kilobytesPerRequest(allocated)} KB a request, promoted ${kilobytesPerRequest(promoted)} KB; ` +
        `${scavenges.length} young and ${fullCollections} full collections; p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms` +
        `${figures.failures > 0 ? `, ${figures.failures} failures` : ''}\n`,
    );
  }
} finally {
  await serve.stop();
}
