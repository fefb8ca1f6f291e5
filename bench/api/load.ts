import autocannon from 'autocannon';
import { type LoadFigures, figuresFromLatencies } from './figures.js';

/** How long each load run lasts: a number of requests per connection, after a warm-up. */
export interface LoadPlan {
  requestsPerConnection: number;
  /** Minimum requests per run, so that a concurrency-1 run still has a p99. */
  minimumRequests: number;
  warmupRequests: number;
}

interface Run {
  latenciesMs: number[];
  elapsedMs: number;
  failures: number;
}

/**
 * Sends `total` requests over `connections` keep-alive connections and stops at the last response:
 * autocannon's own `amount` ends a run only at its next one-second tick, and its histogram keeps
 * whole milliseconds, so the latencies and the elapsed time are taken here.
 */
function run(url: string, connections: number, total: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const latenciesMs: number[] = [];
    let failures = 0;
    let lastResponseAt = 0;
    const started = performance.now();
    const instance = autocannon({ url, connections, duration: 3_600, pipelining: 1, timeout: 30 }, (error) =>
      error ? reject(error) : resolve({ latenciesMs, elapsedMs: lastResponseAt - started, failures }),
    );
    const settle = (latencyMs: number | null) => {
      if (latenciesMs.length + failures >= total) return;
      if (latencyMs === null) failures += 1;
      else latenciesMs.push(latencyMs);
      lastResponseAt = performance.now();
      if (latenciesMs.length + failures === total) instance.stop();
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
  const measured = await run(url, connections, Math.max(plan.minimumRequests, plan.requestsPerConnection * connections));
  return figuresFromLatencies(measured.latenciesMs, measured.elapsedMs, measured.failures);
}
