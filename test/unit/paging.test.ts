import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { InvalidParametersError } from '../../src/api/errors.js';
import {
  blocksValidatedKeyset,
  fetchSize,
  instanceTransfersKeyset,
  internalTransactionsKeyset,
  nextPageParamsSchema,
  nftCollectionsKeyset,
  pageSize,
  pendingTransactionsKeyset,
  tokenBalancesKeyset,
  tokenTransfersKeyset,
  transactionsKeyset,
  withdrawalsKeyset,
} from '../../src/api/paging.js';

// The keyset codecs of src/api/paging.ts: how a page and its next_page_params come out of fetched rows,
// and how the members a client sends back become a keyset (or a 422 naming what is missing).

/** `count` mined-transaction rows, newest first: block 1000 - i, index i mod 3. */
const transactionRows = (count: number) => Array.from({ length: count }, (_, i) => ({ blockNumber: 1000 - i, index: i % 3 }));

/** next_page_params as a client sends them back: every value as text, null as "null" (URLSearchParams writes it so). */
const asQueryText = (params: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(new URLSearchParams(Object.entries(params).map(([name, value]) => [name, String(value)])));

/** A JSON Schema `pattern` as a RegExp (the API validates member text against it). */
const patternOf = (schema: TSchema): RegExp => new RegExp(schema['pattern'] as string);

const maxUint256 = '115792089237316195423570985008687907853269984665640564039457584007913129639935';

test('pages hold 50 items, and 51 rows are fetched to know whether a next page exists', () => {
  assert.equal(pageSize, 50);
  assert.equal(fetchSize, 51);
});

test('51 rows give a page of the first 50 and next_page_params from the 50th', () => {
  const rows = transactionRows(51);
  const { items: page, nextPageParams } = transactionsKeyset.page(rows);
  assert.deepEqual(page, rows.slice(0, 50));
  // The 50th row (i = 49) is block 1000 - 49 = 951, index 49 mod 3 = 1.
  assert.deepEqual(nextPageParams, { block_number: 951, index: 1, items_count: 50 });
});

test('50 rows or fewer are the last page: no next_page_params', () => {
  for (const count of [0, 1, 49, 50]) {
    const rows = transactionRows(count);
    assert.deepEqual(transactionsKeyset.page(rows), { items: rows, nextPageParams: null }, `${count} rows`);
  }
});

test('next_page_params carries items_count only for the lists whose spec lists it', () => {
  const transfers = Array.from({ length: 51 }, (_, i) => ({ blockNumber: 70, logIndex: 3, batchIndex: 50 - i }));
  assert.deepEqual(tokenTransfersKeyset.page(transfers).nextPageParams, { block_number: 70, index: 3, batch_index: 1 });
  const collections = Array.from({ length: 51 }, (_, i) => ({
    token: { address: `0x${i.toString(16).padStart(40, '0')}` as const, type: 'ERC-721' },
  }));
  // Row 50 (i = 49 = 0x31).
  assert.deepEqual(nftCollectionsKeyset.page(collections).nextPageParams, {
    token_contract_address_hash: '0x0000000000000000000000000000000000000031',
    token_type: 'ERC-721',
  });
  const blocks = Array.from({ length: 51 }, (_, i) => ({ number: 500 - i }));
  assert.deepEqual(blocksValidatedKeyset.page(blocks).nextPageParams, { block_number: 451, items_count: 50 });
  const withdrawals = Array.from({ length: 51 }, (_, i) => ({ index: 9_000_000_000 - i }));
  assert.deepEqual(withdrawalsKeyset.page(withdrawals).nextPageParams, { index: 8_999_999_951, items_count: 50 });
});

test('no member sent back is the first page; items_count alone is no member', () => {
  assert.equal(transactionsKeyset.parse({}), null);
  assert.equal(transactionsKeyset.parse({ items_count: 50 } as Parameters<typeof transactionsKeyset.parse>[0]), null);
  assert.equal(tokenBalancesKeyset.parse({}), null);
});

test('every member sent back is a keyset', () => {
  assert.deepEqual(transactionsKeyset.parse({ block_number: 951, index: 1 }), { blockNumber: 951, index: 1 });
  assert.deepEqual(internalTransactionsKeyset.parse({ block_number: 12, transaction_index: 4, index: 0 }), {
    blockNumber: 12,
    transactionIndex: 4,
    index: 0,
  });
  assert.deepEqual(tokenTransfersKeyset.parse({ block_number: 70, index: 3, batch_index: 1 }), {
    blockNumber: 70,
    logIndex: 3,
    batchIndex: 1,
  });
  assert.deepEqual(blocksValidatedKeyset.parse({ block_number: 451 }), { blockNumber: 451 });
  assert.deepEqual(withdrawalsKeyset.parse({ index: Number.MAX_SAFE_INTEGER }), { index: 9_007_199_254_740_991 });
});

test('a partial set of members is a 422 naming each missing member, in the order the list defines them', () => {
  assert.throws(() => transactionsKeyset.parse({ block_number: 951 }), {
    name: 'InvalidParametersError',
    invalid: [{ param: 'index', detail: 'Missing: the members of next_page_params (block_number, index) are sent back together.' }],
  });
  const detail = 'Missing: the members of next_page_params (block_number, index, transaction_index) are sent back together.';
  assert.throws(() => internalTransactionsKeyset.parse({ index: 0 }), {
    name: 'InvalidParametersError',
    invalid: [
      { param: 'block_number', detail },
      { param: 'transaction_index', detail },
    ],
  });
  // E4's keyset needs token_id too, though it does not use it.
  assert.throws(() => instanceTransfersKeyset.parse({ block_number: 70, index: 3, batch_index: 1 }), {
    name: 'InvalidParametersError',
    invalid: [
      {
        param: 'token_id',
        detail: 'Missing: the members of next_page_params (block_number, index, batch_index, token_id) are sent back together.',
      },
    ],
  });
  assert.throws(
    () => tokenBalancesKeyset.parse({ value: '1' }),
    (error: unknown) => {
      assert.ok(error instanceof InvalidParametersError, `expected an InvalidParametersError, got ${String(error)}`);
      assert.deepEqual(
        error.invalid.map((i) => i.param),
        ['token_name', 'token_type', 'token_contract_address_hash', 'token_id'],
      );
      return true;
    },
  );
});

test('hashes and addresses sent back in any case become lowercase keysets', () => {
  const hash = `0x${'AbCdEf01'.repeat(8)}`;
  assert.deepEqual(pendingTransactionsKeyset.parse({ inserted_at: '2024-05-01T12:00:00.123456Z', hash }), {
    insertedAt: '2024-05-01T12:00:00.123456Z',
    hash: `0x${'abcdef01'.repeat(8)}`,
  });
  assert.deepEqual(
    nftCollectionsKeyset.parse({ token_contract_address_hash: '0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED', token_type: 'ERC-1155' }),
    { tokenType: 'ERC-1155', tokenAddress: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed' },
  );
});

test('E1: a balance beyond what a JSON number holds, a token without a name and a fungible token go round as text', () => {
  const address = '0x00000000000000000000000000000000000000aa';
  const rows = Array.from({ length: 51 }, (_, i) => ({
    value: 2n ** 128n - BigInt(i),
    tokenId: null,
    token: { name: null, type: 'ERC-20' as const, address: address as `0x${string}` },
  }));
  const { nextPageParams } = tokenBalancesKeyset.page(rows);
  // 2^128 - 49, written out by hand.
  assert.deepEqual(nextPageParams, {
    value: '340282366920938463463374607431768211407',
    token_name: null,
    token_type: 'ERC-20',
    token_contract_address_hash: address,
    token_id: null,
    items_count: 50,
  });
  const sentBack = asQueryText(nextPageParams!);
  assert.equal(sentBack['token_name'], 'null');
  assert.deepEqual(tokenBalancesKeyset.parse(sentBack as Parameters<typeof tokenBalancesKeyset.parse>[0]), {
    value: 340282366920938463463374607431768211407n,
    tokenName: null,
    tokenType: 'ERC-20',
    tokenAddress: address,
    tokenId: null,
  });
});

test('E1: a named token and an NFT id come back as they were; an empty name or id is null', () => {
  const keyset = tokenBalancesKeyset.parse({
    value: '1',
    token_name: 'Art',
    token_type: 'ERC-1155',
    token_contract_address_hash: '0x00000000000000000000000000000000000000BB',
    token_id: maxUint256,
  });
  assert.deepEqual(keyset, {
    value: 1n,
    tokenName: 'Art',
    tokenType: 'ERC-1155',
    tokenAddress: '0x00000000000000000000000000000000000000bb',
    tokenId: 2n ** 256n - 1n,
  });
  const empty = tokenBalancesKeyset.parse({
    value: '0',
    token_name: '',
    token_type: 'ERC-721',
    token_contract_address_hash: '0x00000000000000000000000000000000000000bb',
    token_id: '',
  });
  assert.deepEqual([empty?.tokenName, empty?.tokenId], [null, null]);
});

test('E4: next_page_params carries the instance token_id as text; the keyset is the transfer position', () => {
  const rows = Array.from({ length: 51 }, (_, i) => ({ blockNumber: 100 - i, logIndex: 2, batchIndex: 0, tokenId: 2n ** 256n - 1n }));
  const { nextPageParams } = instanceTransfersKeyset.page(rows);
  assert.deepEqual(nextPageParams, { block_number: 51, index: 2, batch_index: 0, token_id: maxUint256 });
  assert.deepEqual(instanceTransfersKeyset.parse(nextPageParams!), { blockNumber: 51, logIndex: 2, batchIndex: 0 });
});

test('every list reads back the keyset of the row its next_page_params came from', () => {
  const pending = Array.from({ length: 51 }, (_, i) => ({
    insertedAt: `2024-05-01T12:00:${String(59 - i).padStart(2, '0')}.000001Z`,
    hash: `0x${String(i).padStart(64, '0')}`,
  }));
  assert.deepEqual(pendingTransactionsKeyset.parse(pendingTransactionsKeyset.page(pending).nextPageParams!), {
    insertedAt: '2024-05-01T12:00:10.000001Z',
    hash: `0x${'0'.repeat(62)}49`,
  });
  const internal = Array.from({ length: 51 }, (_, i) => ({ blockNumber: 9, transactionIndex: 60 - i, index: i }));
  assert.deepEqual(internalTransactionsKeyset.parse(internalTransactionsKeyset.page(internal).nextPageParams!), {
    blockNumber: 9,
    transactionIndex: 11,
    index: 49,
  });
});

test('the members accept what the columns behind them hold, and no more', () => {
  const check = (querystring: object, values: object) => Value.Check(Type.Object(querystring as never), values);
  const transactions = transactionsKeyset.querystring;
  assert.equal(check(transactions, {}), true, 'every member is optional');
  assert.equal(check(transactions, { block_number: 9_007_199_254_740_991, index: 2_147_483_647, items_count: 50 }), true);
  assert.equal(check(transactions, { index: 2_147_483_648 }), false, 'index within a PostgreSQL integer');
  assert.equal(check(transactions, { block_number: -1 }), false);
  assert.equal(check(transactions, { block_number: 1.5 }), false);
  assert.equal(check(transactions, { items_count: 0 }), false);
  assert.equal(check(transactions, { items_count: 51 }), false);
  assert.equal(check(withdrawalsKeyset.querystring, { index: 9_007_199_254_740_991 }), true, 'withdrawal indexes are bigint');

  const instanceId = patternOf(instanceTransfersKeyset.querystring.token_id);
  assert.match(maxUint256, instanceId);
  assert.doesNotMatch(`${maxUint256}0`, instanceId, '79 digits');
  assert.doesNotMatch('null', instanceId);
  assert.doesNotMatch('-1', instanceId);
  const balanceId = patternOf(tokenBalancesKeyset.querystring.token_id);
  assert.match('null', balanceId);
  assert.match(maxUint256, balanceId);
  assert.doesNotMatch('', balanceId);
  const value = patternOf(tokenBalancesKeyset.querystring.value);
  assert.match('9'.repeat(80), value);
  assert.doesNotMatch('9'.repeat(81), value);
  assert.doesNotMatch('1e3', value);

  const insertedAt = patternOf(pendingTransactionsKeyset.querystring.inserted_at);
  for (const time of ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.1Z', '2024-05-01T12:00:00.123456Z']) assert.match(time, insertedAt);
  // Year 0000 passes date-time but not PostgreSQL; microseconds are all PostgreSQL keeps.
  for (const time of ['0000-05-01T12:00:00Z', '2024-05-01T12:00:00.1234567Z', '2024-05-01T12:00:00+02:00', '2024-05-01 12:00:00Z']) {
    assert.doesNotMatch(time, insertedAt);
  }
});

test('the response schema of next_page_params: members in alphabetical order, nullable, all optional when lists share it', () => {
  const single = nextPageParamsSchema(transactionsKeyset);
  assert.equal(single['nullable'], true);
  assert.deepEqual(Object.keys(single['properties']), ['block_number', 'index', 'items_count']);
  assert.deepEqual(single['required'], ['block_number', 'index', 'items_count']);

  const transfers = nextPageParamsSchema(tokenTransfersKeyset);
  assert.deepEqual(Object.keys(transfers['properties']), ['batch_index', 'block_number', 'index'], 'no items_count for E8');
  assert.deepEqual(transfers['required'], ['batch_index', 'block_number', 'index']);

  // E2 pages its validated and pending lists by different keysets.
  const shared = nextPageParamsSchema(transactionsKeyset, pendingTransactionsKeyset);
  assert.deepEqual(Object.keys(shared['properties']), ['block_number', 'hash', 'index', 'inserted_at', 'items_count']);
  assert.equal(shared['required'], undefined);
});
