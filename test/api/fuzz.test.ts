import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, test } from 'node:test';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { type ChainSubjects, indexedSubjects } from '../support/endpoint-snapshot.js';
import { type FuzzAnswer, describeFuzzRequest, fuzzAnswerProblem, fuzzRequests, sendFuzzRequest } from '../support/fuzz-requests.js';
import { assertConformsToOpenApi } from '../support/openapi-conformance.js';
import { servedRoutes } from '../support/served-paths.js';
import { type TokenChain, indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { type RunningApi, startApi } from './http.js';

/**
 * Seeded malformed requests over every route and parameter, against the API serving a small real
 * chain (ERC-20, ERC-721 and ERC-1155 tokens on anvil, indexed into PostgreSQL), over real HTTP.
 * FUZZ_SEED replays or varies a run; the seed is in every failure.
 */

const seed = Number(process.env.FUZZ_SEED ?? 16);
const count = 3000;
// Generous: the machine may be busy; a request that queues behind the database for this long is a defect.
const boundMs = 10_000;
const concurrency = 4;

let chain: TokenChain;
let db: TestDatabase;
let api: RunningApi;
let subjects: ChainSubjects;

before(async () => {
  chain = await startTokenChain();
  db = await createTestDatabase();
  await indexTokenChain(chain, db);
  subjects = await indexedSubjects(db.pool);
  api = await startApi(db.pool);
});
after(async () => {
  await api?.close();
  await db?.drop();
  await chain?.anvil.stop();
});

test(`${count} generated malformed requests (seed ${seed}): no 5xx, always JSON with nosniff, nothing leaked, none slow`, async () => {
  const routes = servedRoutes();
  const requests = fuzzRequests(seed, count, routes, subjects);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const problems: string[] = [];
  const statuses = new Map<number, number>();
  // Per route template: the statuses it answered, to show that the generator reached every route both ways.
  const answeredByRoute = new Map<string, Set<number>>(routes.map((route) => [route.url, new Set()]));
  // As the router does, a static segment wins over a parameter: /transactions/stats is not a transaction hash.
  const byStaticFirst = [...routes].sort((a, b) => a.params.length - b.params.length);
  const routeOf = (path: string) =>
    byStaticFirst.find((route) => new RegExp(`^${route.url.replace(/:[a-z_]+/g, '[^/?]+')}(\\?|$)`).test(path))?.url;

  const pending = requests.map((request, n) => ({ request, n }));
  const worker = async () => {
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
      const { request, n } = next;
      let answer: FuzzAnswer;
      try {
        answer = await sendFuzzRequest(new URL(api.base), request, agent);
      } catch (error) {
        problems.push(`#${n} ${describeFuzzRequest(request)}: no answer (${(error as Error).message})`);
        continue;
      }
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const route = request.method === 'GET' ? routeOf(request.path) : undefined;
      if (route !== undefined) answeredByRoute.get(route)!.add(answer.status);
      let problem = fuzzAnswerProblem(request, answer, boundMs);
      // Answers the routes gave (others come before routing: a request Node or the router cannot read, a body).
      // An empty path value (`/instances//transfers`) is a 422 naming it, where the schema's paths know of none.
      const checkable = request.method === 'GET' && [200, 404, 422].includes(answer.status) && !request.path.split('?')[0]!.includes('//');
      if (problem === null && checkable) {
        try {
          // The router ignores a fragment, as a browser would never send one; so does the check.
          assertConformsToOpenApi(request.path.replace(/#.*/, ''), answer.status, JSON.parse(answer.body));
        } catch (error) {
          problem = (error as Error).message.split('\n').slice(0, 3).join(' ');
        }
      }
      if (problem !== null) problems.push(`#${n} ${describeFuzzRequest(request)}: ${problem.slice(0, 400)}: ${answer.body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();

  assert.deepEqual(problems.slice(0, 20), [], `seed ${seed}: ${problems.length} problems`);
  const summary = JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)));
  // The generator reaches the handlers, not only the validator: every route answered 200 and a 4xx.
  const notBoth = [...answeredByRoute].filter(([, seen]) => !seen.has(200) || ![...seen].some((s) => s >= 400 && s < 500));
  assert.deepEqual(
    notBoth.map(([url]) => url),
    [],
    `routes that did not answer both a 200 and a 4xx (statuses ${summary})`,
  );
});
