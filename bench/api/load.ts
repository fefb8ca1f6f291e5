import autocannon from 'autocannon';
import { type LoadFigures, figuresFromLatencies } from './figures.js';

/** How long each load run lasts: a number of requests per connection, after a warm-up. */
export interface LoadPlan {
  requestsPerConnection: number;
  /** Minimum requests per run, so that a concurrency-1 run still has a p99. */
  minimumRequests: number;
  warmupRequests: number;
}

/**
 * A measured run lasts at least this long, whatever its number of requests: 640 requests of a page
 * answered from memory at 64 clients took under 0.1 s, so that one pause (a collection, a shared
 * answer computed again) made its requests/s.
 */
const MINIMUM_RUN_MS = 1_000;

interface Run {
  latenciesMs: number[];
  elapsedMs: number;
  failures: number;
}

/**
 * Sends `total` requests, or more until `minimumMs` have passed, over `connections` keep-alive
 * connections, and stops at the last response: autocannon's own `amount` ends a run only at its next
 * one-second tick, and its histogram keeps whole milliseconds, so the latencies and the elapsed time
 * are taken here.
 */
function run(url: string, connections: number, total: number, minimumMs = 0): Promise<Run> {
  return new Promise((resolve, reject) => {
    const latenciesMs: number[] = [];
    let failures = 0;
    let lastResponseAt = 0;
    const started = performance.now();
    const instance = autocannon({ url, connections, duration: 3_600, pipelining: 1, timeout: 30 }, (error) =>
      error ? reject(error) : resolve({ latenciesMs, elapsedMs: lastResponseAt - started, failures }),
    );
    let stopped = false;
    const settle = (latencyMs: number | null) => {
      if (stopped) return;
      if (latencyMs === null) failures += 1;
      else latenciesMs.push(latencyMs);
      lastResponseAt = performance.now();
      if (latenciesMs.length + failures >= total && lastResponseAt - started >= minimumMs) {
        stopped = true;
        instance.stop();
      }
    };
    instance.on('response', (_client, statusCode: number, _bytes, responseTimeMs: number) =>
      settle(statusCode === 200 ? responseTimeMs : null),
    );
    instance.on('reqError', () => settle(null));
  });
}

/** Loads `url` over HTTP with `connections` concurrent keep-alive connections (autocannon), after a warm-up. */
export async function loadHttp(url: string, connections: number, plan: LoadPlan): Promise<LoadFigures> {
  await run(url, connections, Math.max(plan.warmupRequests, connections));
  const measured = await run(url, connections, Math.max(plan.minimumRequests, plan.requestsPerConnection * connections), MINIMUM_RUN_MS);
  return figuresFromLatencies(measured.latenciesMs, measured.elapsedMs, measured.failures);
}
