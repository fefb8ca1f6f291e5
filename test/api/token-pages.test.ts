import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Address, type Hex, encodeFunctionData, getAddress, parseAbi } from 'viem';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { instanceTransferCountMismatches } from '../support/stored-counters.js';
import { type NodeTransfer, type TokenChain, batchIds, indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { type RunningApi, assertFullPages, collectList, queryString, startApi } from './http.js';

/**
 * The token and token-instance pages against a chain built on anvil: every expectation comes from the
 * node (its logs and balanceOf / totalSupply calls) or from another endpoint (E4, E8), never from the
 * tables the pages read.
 */

let chain: TokenChain;
let db: TestDatabase;
let api: RunningApi;

before(async () => {
  chain = await startTokenChain();
  db = await createTestDatabase();
  await indexTokenChain(chain, db);
  api = await startApi(db.pool);
});
after(async () => {
  await api?.close();
  await db?.drop();
  await chain?.anvil.stop();
});

const zero: Address = '0x0000000000000000000000000000000000000000';
const abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function balanceOf(address, uint256) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
]);

async function call(to: Address, data: Hex): Promise<bigint> {
  return BigInt(await chain.client.request<Hex>('eth_call', [{ to, data }, 'latest']));
}

const newestFirst = (a: NodeTransfer, b: NodeTransfer) =>
  b.blockNumber - a.blockNumber || b.logIndex - a.logIndex || b.batchIndex - a.batchIndex;
const keyOfTransfer = (t: NodeTransfer) => `${t.blockNumber}:${t.logIndex}:${t.tokenId ?? ''}:${t.value}`;
const keyOfItem = (item: any) => `${item.block_number}:${item.log_index}:${item.total?.token_id ?? ''}:${item.total?.value ?? 1}`;
const tokenPath = (token: string, page = '') => `/api/v2/tokens/${token}${page}`;

test('the token: its type and holders_count, as /counters gives it too, and a 404 for an address that is no token', async () => {
  const { erc20, erc721, erc1155 } = chain.scenario.contracts;
  for (const [token, type] of [
    [erc20, 'ERC-20'],
    [erc721, 'ERC-721'],
    [erc1155, 'ERC-1155'],
  ] as const) {
    const response = await api.get(tokenPath(token.toLowerCase()));
    assert.equal(response.status, 200);
    assert.equal(response.body.address_hash, getAddress(token));
    assert.equal(response.body.type, type);
    const counters = await api.get(tokenPath(token, '/counters'));
    assert.equal(counters.status, 200);
    assert.equal(counters.body.token_holders_count, response.body.holders_count, token);
  }
  const { alice } = chain.scenario.accounts;
  for (const page of ['', '/counters', '/transfers', '/holders', '/instances']) {
    for (const address of [`0x${'cd'.repeat(20)}`, alice]) {
      const response = await api.get(tokenPath(address, page));
      assert.equal(response.status, 404, `${address}${page}`);
      assert.deepEqual(response.body, { message: 'Not found' });
    }
  }
});

test("an ERC-20's holders sum to its total supply, each with the node's balance, and their count is holders_count", async () => {
  const { erc20 } = chain.scenario.contracts;
  const list = await collectList(api, tokenPath(erc20, '/holders'));
  assert.ok(list.items.length >= 3, `${list.items.length} holders`);
  let sum = 0n;
  for (const item of list.items) {
    assert.equal(item.token_id, null);
    const onChain = await call(erc20, encodeFunctionData({ abi, functionName: 'balanceOf', args: [item.address.hash] }));
    assert.equal(item.value, onChain.toString(), item.address.hash);
    sum += BigInt(item.value);
  }
  assert.equal(sum, await call(erc20, encodeFunctionData({ abi, functionName: 'totalSupply' })));
  const values = list.items.map((item) => BigInt(item.value));
  assert.deepEqual(
    values,
    [...values].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)),
    'largest balance first',
  );
  assert.equal((await api.get(tokenPath(erc20))).body.holders_count, String(list.items.length));
  assert.equal((await api.get(tokenPath(erc20, '/counters'))).body.token_holders_count, String(list.items.length));
});

test("a token's transfers are the node's, newest first, exactly E8's of that token, and transfers_count is their number", async () => {
  const { erc20, erc721, erc1155 } = chain.scenario.contracts;
  for (const token of [erc20, erc721, erc1155]) {
    const list = await collectList(api, tokenPath(token, '/transfers'));
    assertFullPages(list);
    const expected = chain.transfers
      .filter((t) => t.token === token.toLowerCase())
      .sort(newestFirst)
      .map(keyOfTransfer);
    assert.deepEqual(list.items.map(keyOfItem), expected, token);
    const counters = await api.get(tokenPath(token, '/counters'));
    assert.equal(counters.body.transfers_count, String(list.items.length), token);
    // Each address's share of them is its E8 list filtered by the token, item for item.
    const parties = [...new Set(list.items.flatMap((item) => [item.from.hash, item.to.hash]))];
    for (const party of parties) {
      const e8 = await collectList(api, `/api/v2/addresses/${party}/token-transfers`, { token });
      const mine = list.items.filter((item) => item.from.hash === party || item.to.hash === party);
      assert.deepEqual(mine, e8.items, `${token} ${party}`);
    }
  }
  const erc1155List = await collectList(api, tokenPath(erc1155, '/transfers'));
  assert.ok(erc1155List.pageSizes.length > 1, 'the ERC-1155 transfers take several pages');
});

test("every ERC-721 instance's owner is the recipient of its latest E4 transfer, and its transfers-count E4's length", async () => {
  const { erc721 } = chain.scenario.contracts;
  const instances = await collectList(api, tokenPath(erc721, '/instances'));
  const ids = [...new Set(chain.transfers.filter((t) => t.token === erc721.toLowerCase()).map((t) => t.tokenId!))].sort((a, b) =>
    a > b ? -1 : 1,
  );
  assert.deepEqual(
    instances.items.map((item) => item.id),
    ids.map(String),
    'every id, highest first',
  );
  for (const item of instances.items) {
    const e4 = await collectList(api, tokenPath(erc721, `/instances/${item.id}/transfers`));
    const latest = e4.items[0];
    const instance = await api.get(tokenPath(erc721, `/instances/${item.id}`));
    assert.equal(instance.status, 200);
    assert.equal(instance.body.owner?.hash, latest.to.hash, `owner of ${item.id}`);
    assert.equal(instance.body.is_unique, true);
    assert.equal(instance.body.token.address_hash, getAddress(erc721));
    assert.deepEqual(item, instance.body, 'the list shows the instance as its page does');
    const count = await api.get(tokenPath(erc721, `/instances/${item.id}/transfers-count`));
    assert.deepEqual(count.body, { transfers_count: e4.items.length });
  }
});

test("every NFT id's stored transfers_count is the number of transfer logs that mention it", async () => {
  const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM token_instances WHERE transfers_count > 1');
  assert.ok(rows[0]!.n > 0, 'some id was transferred more than once');
  assert.deepEqual(await instanceTransferCountMismatches(db.pool), []);
});

test('an ERC-1155 id held by several addresses lists each with its balance, largest first, and has no single owner', async () => {
  const { erc1155 } = chain.scenario.contracts;
  const ids = [...new Set(chain.transfers.filter((t) => t.token === erc1155.toLowerCase()).map((t) => t.tokenId!))];
  const holders = [...new Set(chain.transfers.flatMap((t) => [t.from, t.to]))].filter((a) => a !== zero);
  let shared = 0;
  for (const id of ids) {
    const expected: [string, string][] = [];
    for (const holder of holders) {
      const value = await call(erc1155, encodeFunctionData({ abi, functionName: 'balanceOf', args: [holder, id] }));
      if (value > 0n) expected.push([getAddress(holder), value.toString()]);
    }
    expected.sort(([a, x], [b, y]) =>
      BigInt(y) > BigInt(x) ? 1 : BigInt(y) < BigInt(x) ? -1 : a.toLowerCase() < b.toLowerCase() ? 1 : -1,
    );
    const list = await collectList(api, tokenPath(erc1155, `/instances/${id}/holders`));
    assert.deepEqual(
      list.items.map((item) => [item.address.hash, item.value]),
      expected,
      `holders of id ${id}`,
    );
    for (const item of list.items) assert.equal(item.token_id, id.toString());
    const instance = (await api.get(tokenPath(erc1155, `/instances/${id}`))).body;
    const unique = expected.length === 1 && expected[0]![1] === '1';
    assert.equal(instance.is_unique, unique, `id ${id}`);
    assert.equal(instance.owner?.hash ?? null, unique ? expected[0]![0] : null, `owner of id ${id}`);
    if (expected.length > 1) shared++;
    const e4 = await collectList(api, tokenPath(erc1155, `/instances/${id}/transfers`));
    assert.deepEqual((await api.get(tokenPath(erc1155, `/instances/${id}/transfers-count`))).body, { transfers_count: e4.items.length });
  }
  assert.ok(shared > 0, 'some id is held by several addresses');
});

test('holders and instances page through ERC-1155 ids without losing or repeating an item', async () => {
  const { erc1155 } = chain.scenario.contracts;
  const holders = await collectList(api, tokenPath(erc1155, '/holders'));
  assertFullPages(holders);
  assert.ok(holders.pageSizes.length > 1, 'several pages of holders');
  const keys = holders.items.map((item) => `${item.address.hash}:${item.token_id}`);
  assert.equal(new Set(keys).size, keys.length);
  assert.ok(batchIds.every((id) => keys.some((key) => key.endsWith(`:${id}`))));
  for (const params of holders.nextPageParams) assert.deepEqual(Object.keys(params), ['address_hash', 'items_count', 'token_id', 'value']);
  const { rows } = await db.pool.query<{ n: string }>(
    "SELECT count(*)::text AS n FROM address_token_balances WHERE token_address = decode($1, 'hex') AND value > 0",
    [erc1155.slice(2).toLowerCase()],
  );
  assert.equal(String(holders.items.length), rows[0]!.n);

  const instances = await collectList(api, tokenPath(erc1155, '/instances'));
  assertFullPages(instances);
  assert.ok(instances.pageSizes.length > 1, 'several pages of instances');
  const ids = instances.items.map((item) => BigInt(item.id));
  const expected = [...new Set(chain.transfers.filter((t) => t.token === erc1155.toLowerCase()).map((t) => t.tokenId!))].sort((a, b) =>
    a > b ? -1 : 1,
  );
  assert.deepEqual(ids, expected);
  for (const params of instances.nextPageParams) assert.deepEqual(Object.keys(params), ['unique_token']);
});

test('404s for unknown ids and fungible tokens, 422s naming the parameter', async () => {
  const { erc20, erc721 } = chain.scenario.contracts;
  for (const path of [
    tokenPath(erc721, '/instances/999'),
    tokenPath(erc20, '/instances/1'),
    tokenPath(erc20, '/instances/1/holders'),
    tokenPath(erc20, '/instances/1/transfers-count'),
    tokenPath(`0x${'cd'.repeat(20)}`, '/instances/1'),
  ]) {
    const response = await api.get(path);
    assert.equal(response.status, 404, path);
    assert.deepEqual(response.body, { message: 'Not found' });
  }
  assert.deepEqual((await api.get(tokenPath(erc721, '/instances/999/transfers-count'))).body, { transfers_count: 0 });
  assert.deepEqual((await api.get(tokenPath(erc20, '/instances'))).body, { items: [], next_page_params: null });
  const cases: [string, string][] = [
    [tokenPath('0x12'), 'address_hash'],
    [tokenPath('0x12', '/counters'), 'address_hash'],
    [tokenPath(erc20, `/holders${queryString({ value: '5' })}`), 'address_hash'],
    [tokenPath(erc20, `/holders${queryString({ value: '1e3', address_hash: erc20, token_id: 'null' })}`), 'value'],
    [tokenPath(erc20, `/holders${queryString({ value: '3', address_hash: '0xab', token_id: 'null' })}`), 'address_hash'],
    [tokenPath(erc20, `/transfers${queryString({ block_number: 1, index: 0 })}`), 'batch_index'],
    [tokenPath(erc721, `/instances${queryString({ unique_token: '-1' })}`), 'unique_token'],
    [tokenPath(erc721, '/instances/abc'), 'id'],
    [tokenPath(erc721, '/instances/1.5/holders'), 'id'],
    [tokenPath(erc721, `/instances/1/holders${queryString({ value: 'x', address_hash: erc20 })}`), 'value'],
    [tokenPath(erc721, '/instances/-1/transfers-count'), 'id'],
  ];
  for (const [path, param] of cases) {
    const response = await api.get(path);
    assert.equal(response.status, 422, path);
    assert.ok(
      response.body.errors.some((e: any) => e.source.pointer === `/${param}`),
      `${path}: ${response.text}`,
    );
  }
});
