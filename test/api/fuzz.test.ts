import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import type { Address, Hex } from '../../src/model.js';
import { savePrices, saveTokenList } from '../../src/store/market.js';
import { startVerificationJobs, type VerificationJobs } from '../../src/app/verification-jobs.js';
import { createVerifier, type Verifier } from '../../src/verification/index.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { type ChainSubjects, indexedSubjects } from '../support/endpoint-snapshot.js';
import {
  type FuzzAnswer,
  describeFuzzRequest,
  fuzzAnswerProblem,
  fuzzBodyRequests,
  fuzzRequests,
  sendFuzzRequest,
} from '../support/fuzz-requests.js';
import { assertConformsToOpenApi } from '../support/openapi-conformance.js';
import { servedRoutes } from '../support/served-paths.js';
import { nameAndTag } from '../support/names-and-tags.js';
import { type TokenChain, indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { type RunningApi, startApi } from './http.js';

/**
 * Seeded malformed requests over every route and parameter, against the API serving a small real
 * chain (ERC-20, ERC-721 and ERC-1155 tokens on anvil, indexed into PostgreSQL), over real HTTP.
 * FUZZ_SEED replays or varies a run; the seed is in every failure.
 */

const seed = Number(process.env.FUZZ_SEED ?? 16);
const count = 4000;
// Generous: the machine may be busy; a request that queues behind the database for this long is a defect.
const boundMs = 10_000;
const concurrency = 4;

let chain: TokenChain;
let db: TestDatabase;
let api: RunningApi;
let subjects: ChainSubjects;
let verifier: Verifier;
let jobs: VerificationJobs;
let cacheDir: string;

before(async () => {
  chain = await startTokenChain();
  db = await createTestDatabase();
  await indexTokenChain(chain, db);
  subjects = await indexedSubjects(db.pool);
  // Prices and a token list as their stages store them, so that every answer carrying them is fuzzed with values, not nulls.
  const { erc20, erc1155 } = chain.scenario.contracts;
  const lower = (address: string) => address.toLowerCase() as Hex;
  await savePrices(
    db.pool,
    {
      market: {
        fiatValue: '3120.45',
        priceChangePercentage24h: -1.21906,
        marketCap: '375083520142',
        volume24h: '1.8e10',
        imageUrl: 'https://img.example/eth.png',
        circulatingSupply: '120204327.1',
      },
      history: [
        { day: '2026-11-25', closingPrice: '3050.1', marketCap: '366000000000' },
        { day: '2026-11-26', closingPrice: '3101.9', marketCap: null },
      ],
    },
    [
      {
        address: lower(erc20),
        fiatValue: '1.002',
        circulatingMarketCap: '5321440123',
        volume24h: '123456789.12',
        iconUrl: 'https://img.example/dmo.png',
      },
    ],
  );
  await saveTokenList(db.pool, [{ address: lower(erc1155), name: 'Listed', symbol: 'LST', decimals: 0n, logoUri: 'ipfs://bafy/lst.png' }]);
  await nameAndTag(db, subjects.addresses[0]! as Address);
  cacheDir = await mkdtemp(join(tmpdir(), 'sextant-fuzz-compilers-'));
  // Verification for real, with tight bounds: a compile the fuzzer makes slow is stopped after 5 s.
  verifier = createVerifier({
    cacheDir,
    releasesUrl: null,
    compileTimeoutMs: 5_000,
    compileMemoryMb: 512,
    maxConcurrentCompiles: 1,
    maxQueuedCompiles: 2,
    logger: pino({ level: 'silent' }),
  });
  // As `serve` does when it starts: the bundled compiler's version asked before the first request.
  await verifier.compilers();
  jobs = startVerificationJobs({
    pool: db.pool,
    verifier,
    logger: pino({ level: 'silent' }),
    concurrency: 1,
    leaseMs: 60_000,
    pollIntervalMs: 500,
  });
  api = await startApi(db.pool, { verification: { submit: (a, r) => jobs.submit(a, r), compilers: () => verifier.compilers() } });
});
after(async () => {
  await api?.close();
  await jobs?.close();
  await verifier?.close();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
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

const bodyCount = 300;

test(`${bodyCount} generated requests with bodies to the verification routes (seed ${seed}): no 5xx, always JSON, none slow`, async () => {
  const requests = fuzzBodyRequests(seed, bodyCount, subjects);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const problems: string[] = [];
  const statuses = new Map<number, number>();
  const pending = requests.map((request, n) => ({ request, n }));
  const worker = async () => {
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
      const { request, n } = next;
      try {
        const answer = await sendFuzzRequest(new URL(api.base), request, agent);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const problem = fuzzAnswerProblem(request, answer, boundMs);
        if (problem !== null) problems.push(`#${n} ${describeFuzzRequest(request)}: ${problem}: ${answer.body.slice(0, 200)}`);
      } catch (error) {
        // The server may answer a body it refuses (too large) and close before all of it was written.
        if (!/EPIPE|ECONNRESET/.test((error as Error).message))
          problems.push(`#${n} ${describeFuzzRequest(request)}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  assert.deepEqual(problems.slice(0, 20), [], `seed ${seed}: ${problems.length} problems`);
  const seen = [...statuses.keys()];
  // The bodies reached the handlers: some were taken (200), some refused as malformed (422) or too large (413).
  for (const status of [200, 413, 422]) assert.ok(seen.includes(status), `statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
});
