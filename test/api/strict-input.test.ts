import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { maxListItems } from '../../src/api/filters.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { servedRoutes } from '../support/served-paths.js';
import { type RunningApi, startApi } from './http.js';

/** Integer parameters take plain decimal digits only, text no NUL, comma lists a bounded number of values: on every route. */

let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createTestDatabase();
  api = await startApi(db.pool);
});
after(async () => {
  await api?.close();
  await db?.drop();
});

const pathValues: Record<string, string> = {
  address_hash: `0x${'1'.repeat(40)}`,
  transaction_hash: `0x${'1'.repeat(64)}`,
  block_number_or_hash: '1',
  id: '1',
};

const pathOf = (url: string): string => url.replace(/:([a-z_]+)/g, (_, name: string) => pathValues[name] ?? '1');

const pointers = (body: { errors: { source: { pointer: string } }[] }) => body.errors.map((e) => e.source.pointer);

const malformedIntegers = [
  '1e3',
  '0x10',
  '0b1',
  '%2B1',
  '1.0',
  '-0',
  '%20',
  '',
  'Infinity',
  '-Infinity',
  '1e400',
  'NaN',
  '007',
  '9'.repeat(30),
];

test('every integer query parameter of every route refuses what is not plain decimal digits in range, naming it', async () => {
  const routes = servedRoutes().filter((route) => route.integerQuery.length > 0);
  assert.ok(routes.length >= 10, `only ${routes.length} routes with integer parameters found`);
  for (const route of routes) {
    for (const param of route.integerQuery) {
      for (const value of malformedIntegers) {
        const path = `${pathOf(route.url)}?${param}=${value}`;
        const response = await api.get(path);
        assert.equal(response.status, 422, `${path}: ${response.text}`);
        assert.ok(pointers(response.body).includes(`/${param}`), `${path}: ${response.text}`);
      }
    }
  }
});

test('a malformed integer is named together with the schema failures of other parameters, once each', async () => {
  const response = await api.get('/api/v2/transactions?block_number=1e3&index=abc&items_count=0x10');
  assert.equal(response.status, 422);
  assert.deepEqual(pointers(response.body).sort(), ['/block_number', '/index', '/items_count']);
  assert.match(response.text, /plain decimal digits; got \\"1e3\\"/);
});

test('plain integers in range still page: 0, a negative where the schema allows none is a 422, the largest safe block number', async () => {
  const ok = await api.get('/api/v2/transactions?block_number=0&index=0&items_count=50');
  assert.equal(ok.status, 200, ok.text);
  assert.equal((await api.get('/api/v2/transactions?block_number=-1&index=0')).status, 422);
  assert.equal((await api.get('/api/v2/transactions?block_number=9007199254740991&index=2147483647')).status, 200);
  assert.equal((await api.get('/api/v2/transactions?block_number=9007199254740992&index=0')).status, 422);
  assert.equal((await api.get('/api/v2/transactions?block_number=1&index=2147483648')).status, 422);
});

test('NUL in a text parameter is a 422 naming it, not a query PostgreSQL refuses', async () => {
  const address = pathValues.address_hash;
  const token = `0x${'2'.repeat(40)}`;
  const paths = [
    `/api/v2/addresses/${address}/tokens?value=1&token_name=a%00b&token_type=ERC-20&token_contract_address_hash=${token}&token_id=null&items_count=50`,
    '/api/v2/transactions?filter=pending%00',
    '/api/v2/transactions?method=transfer%00',
    `/api/v2/addresses/${address}/token-transfers?type=ERC-20%00`,
  ];
  for (const path of paths) {
    const response = await api.get(path);
    assert.equal(response.status, 422, `${path}: ${response.text}`);
  }
  const tokens = await api.get(paths[0]!);
  assert.deepEqual(pointers(tokens.body), ['/token_name']);
});

test(`comma lists take up to ${maxListItems} values; more is a 422 naming the parameter`, async () => {
  const methods = (n: number) => Array.from({ length: n }, (_, i) => `0x${i.toString(16).padStart(8, '0')}`).join(',');
  assert.equal((await api.get(`/api/v2/transactions?method=${methods(maxListItems)}`)).status, 200);
  const tooMany = await api.get(`/api/v2/transactions?method=${methods(maxListItems + 1)}`);
  assert.equal(tooMany.status, 422);
  assert.deepEqual(pointers(tooMany.body), ['/method']);
  assert.match(tooMany.text, new RegExp(`at most ${maxListItems} values`));
  const types = Array(maxListItems + 1)
    .fill('ERC-20')
    .join(',');
  const tooManyTypes = await api.get(`/api/v2/addresses/${pathValues.address_hash}/tokens?type=${types}`);
  assert.equal(tooManyTypes.status, 422);
  assert.deepEqual(pointers(tooManyTypes.body), ['/type']);
});
