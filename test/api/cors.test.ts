import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { type RunningApi, startApi } from './http.js';

let db: TestDatabase;
let open: RunningApi;
let restricted: RunningApi;
const allowed = 'https://explorer.example';

before(async () => {
  db = await createTestDatabase();
  open = await startApi(db.pool);
  restricted = await startApi(db.pool, { corsOrigins: [allowed, 'http://localhost:3000'] });
});

after(async () => {
  await open?.close();
  await restricted?.close();
  await db?.drop();
});

const preflight = (api: RunningApi, origin: string) =>
  fetch(`${api.base}/api/v2/transactions`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'content-type' },
  });

test('by default any origin may read: a preflight is a 204 that allows it, a GET says so', async () => {
  const answer = await preflight(open, 'https://anywhere.example');
  assert.equal(answer.status, 204);
  assert.equal(answer.headers.get('access-control-allow-origin'), '*');
  assert.match(answer.headers.get('access-control-allow-methods') ?? '', /GET/);
  assert.equal(answer.headers.get('access-control-max-age'), '86400');
  assert.equal(await answer.text(), '');

  const get = await open.get('/api/v2/transactions');
  assert.equal(get.status, 200);
  assert.equal(get.headers.get('access-control-allow-origin'), '*');
  const missing = await open.get(`/api/v2/transactions/0x${'ab'.repeat(32)}`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('access-control-allow-origin'), '*', 'a browser can read errors too');
});

test('with SEXTANT_CORS_ALLOWED_ORIGINS, a listed origin is allowed and another is not', async () => {
  const yes = await preflight(restricted, allowed);
  assert.equal(yes.status, 204);
  assert.equal(yes.headers.get('access-control-allow-origin'), allowed);
  assert.match(yes.headers.get('vary') ?? '', /origin/i);

  const no = await preflight(restricted, 'https://elsewhere.example');
  assert.equal(no.status, 204);
  assert.equal(no.headers.get('access-control-allow-origin'), null, 'no header: the browser refuses');

  const get = await fetch(`${restricted.base}/api/v2/transactions`, { headers: { origin: allowed } });
  assert.equal(get.status, 200);
  assert.equal(get.headers.get('access-control-allow-origin'), allowed);
  const refused = await fetch(`${restricted.base}/api/v2/transactions`, { headers: { origin: 'https://elsewhere.example' } });
  assert.equal(refused.status, 200, 'served, but unreadable to a page on that origin');
  assert.equal(refused.headers.get('access-control-allow-origin'), null);
});
