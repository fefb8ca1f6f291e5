/**
 * `npm run bench:fuzz -- [--url http://localhost:4000] [--requests 20000] [--seed 16] [--concurrency 8]`:
 * the fuzz test's generated malformed requests (test/support/fuzz-requests.ts) against a running
 * Sextant (`sextant start`, the demo by default), over real HTTP. Prints the count of each status,
 * the latencies and every problem (a 5xx, a body that is not JSON, a leak, an answer over 10 s,
 * no answer); exits 1 if there was one. Valid path and query values come from the API's own answers.
 */
import { Agent } from 'node:http';
import type { ChainSubjects } from '../../test/support/endpoint-snapshot.js';
import { describeFuzzRequest, fuzzAnswerProblem, fuzzRequests, sendFuzzRequest } from '../../test/support/fuzz-requests.js';
import { servedRoutes } from '../../test/support/served-paths.js';

function option(args: readonly string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1]! : fallback;
}

const args = process.argv.slice(2);
const base = new URL(option(args, '--url', 'http://localhost:4000'));
const count = Number(option(args, '--requests', '20000'));
const seed = Number(option(args, '--seed', '16'));
const concurrency = Number(option(args, '--concurrency', '8'));
const boundMs = 10_000;

async function getJson(path: string): Promise<any> {
  const response = await fetch(new URL(path, base));
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Addresses, tokens, NFT ids, transactions and blocks the API knows of, from its first pages. */
async function subjectsFromApi(): Promise<ChainSubjects> {
  const transactions = (await getJson('/api/v2/transactions')).items as any[];
  const blocks = (await getJson('/api/v2/blocks')).items as any[];
  const addresses = [...new Set(transactions.flatMap((t) => [t.from?.hash, t.to?.hash]).filter(Boolean) as string[])];
  const balances = (
    await Promise.all(addresses.slice(0, 10).map(async (a) => (await getJson(`/api/v2/addresses/${a}/tokens`)).items))
  ).flat();
  return {
    addresses,
    tokens: [...new Set(balances.map((b: any) => b.token.address_hash as string))],
    instances: balances.filter((b: any) => b.token_id !== null).map((b: any) => ({ token: b.token.address_hash, id: b.token_id })),
    transactions: transactions.map((t) => t.hash),
    blocks: blocks.flatMap((b) => [String(b.height), b.hash]),
  };
}

const subjects = await subjectsFromApi();
const requests = fuzzRequests(seed, count, servedRoutes(), subjects);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const statuses = new Map<string, number>();
const latencies: number[] = [];
const problems: string[] = [];
const started = performance.now();
let next = 0;
const worker = async () => {
  while (next < requests.length) {
    const n = next++;
    const request = requests[n]!;
    try {
      const answer = await sendFuzzRequest(base, request, agent);
      statuses.set(String(answer.status), (statuses.get(String(answer.status)) ?? 0) + 1);
      latencies.push(answer.ms);
      const problem = fuzzAnswerProblem(request, answer, boundMs);
      if (problem !== null) problems.push(`#${n} ${describeFuzzRequest(request)}: ${problem}: ${answer.body.slice(0, 200)}`);
    } catch (error) {
      statuses.set('no answer', (statuses.get('no answer') ?? 0) + 1);
      problems.push(`#${n} ${describeFuzzRequest(request)}: no answer (${(error as Error).message})`);
    }
  }
};
await Promise.all(Array.from({ length: concurrency }, worker));
agent.destroy();

const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
process.stdout.write(
  `${count} requests (seed ${seed}, concurrency ${concurrency}) to ${base.origin} in ${seconds.toFixed(1)} s ` +
    `(${Math.round(count / seconds)}/s); latency p50 ${percentile(50)} ms, p99 ${percentile(99)} ms, max ${percentile(100)} ms\n` +
    `statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a.localeCompare(b))))}\n` +
    `problems: ${problems.length}\n${problems.slice(0, 50).join('\n')}\n`,
);
process.exitCode = problems.length > 0 ? 1 : 0;
