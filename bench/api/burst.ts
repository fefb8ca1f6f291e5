/**
 * The burst benchmark: `sextant start` on the demo (embedded PostgreSQL, demo chain), then 1,000
 * connections sending requests for 20 s (autocannon), then, once they are closed, one fresh request
 * timed on its own. Prints the status counts, the latencies and the fresh request's time; exits 1
 * if a request got another error than 503 or 429, or the fresh request took 500 ms or more.
 *
 *   npm run build && node --import tsx bench/api/burst.ts [--connections N] [--seconds S]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort, startNodeChild } from './child-process.js';

const { values } = parseArgs({ options: { connections: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '20' } } });
const connections = Number(values.connections);
const seconds = Number(values.seconds);
const FRESH_LIMIT_MS = 500;

/** Pages of the demo's data, as a client of the explorer asks for them. */
const paths = [
  '/api/v2/transactions',
  '/api/v2/blocks',
  '/api/v2/transactions?filter=validated&type=contract_call',
  '/api/v2/addresses/0x70997970C51812dc3A010C7d01b50e0d17dc79C8/token-transfers',
  '/api/v2/addresses/0x70997970C51812dc3A010C7d01b50e0d17dc79C8/tokens?type=ERC-20',
];

const dir = await mkdtemp(path.join(tmpdir(), 'sextant-burst-'));
// The embedded PostgreSQL runs as the OS user postgres when Sextant runs as root.
await chmod(dir, 0o755);
const port = await freePort();
const sextant = await startNodeChild(
  ['dist/cli/main.js', 'start'],
  { SEXTANT_DATA_DIR: path.join(dir, 'data'), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
  port,
  '/api/v2/transactions',
);
try {
  // The burst comes once the demo is indexed, onto a process that only follows the head.
  for (const deadline = Date.now() + 300_000; ;) {
    const health = (await (await fetch(`${sextant.baseUrl}/health`)).json()) as { indexer: { phase: string } | null };
    if (health.indexer?.phase === 'following') break;
    if (Date.now() > deadline) throw new Error('the demo was not indexed within 5 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const result = await autocannon({
    url: sextant.baseUrl,
    connections,
    duration: seconds,
    timeout: 30,
    requests: paths.map((p) => ({ method: 'GET', path: p })),
  });
  const started = performance.now();
  const fresh = await fetch(`${sextant.baseUrl}/api/v2/transactions`);
  const freshBody = await fresh.text();
  const freshMs = performance.now() - started;

  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count ?? 0]));
  const otherErrors = Object.entries(statuses).filter(([code]) => !['200', '503', '429'].includes(code));
  console.log(
    JSON.stringify(
      {
        connections,
        seconds,
        requests: result.requests.total,
        statuses,
        socketErrors: result.errors,
        timeouts: result.timeouts,
        latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
        freshRequest: { status: fresh.status, ms: Math.round(freshMs), body: fresh.status === 200 ? undefined : freshBody },
      },
      null,
      2,
    ),
  );
  if (otherErrors.length > 0 || result.timeouts > 0 || fresh.status !== 200 || freshMs >= FRESH_LIMIT_MS) {
    console.error(`missed: statuses other than 200/503/429 ${JSON.stringify(otherErrors)}, fresh request ${fresh.status} in ${freshMs} ms`);
    process.exitCode = 1;
  }
} finally {
  await sextant.stop();
  await rm(dir, { recursive: true, force: true });
}
