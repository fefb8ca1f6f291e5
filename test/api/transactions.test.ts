import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { keccak256, toHex } from 'viem';
import type { Address, Hex } from '../../src/model.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, bytea, createTestDatabase } from '../support/database.js';
import { expectedAddressInfo, expectedTimestamp, knownMethodSelectors } from '../support/expected-json.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type RunningApi, assertFullPages, collectList, queryString, startApi } from './http.js';

// Blocks 1..50 carry three transactions each; blocks 51..160 are empty, so that the average block
// time (sampled 100 to 200 blocks below the head) covers blocks 1..60.
const HEAD = 160;
const contract = syntheticAddress('contract');
const selectors = knownMethodSelectors;
/** Every index-0 transaction, and nothing else, calls this selector: exactly 50 of them. */
const fiftySelector = '0xdeadbeef';
const kinds = ['coin_transfer', 'contract_call', 'contract_creation', 'token_creation', 'token_transfer'] as const;
type Kind = (typeof kinds)[number];

/** What the test knows about each transaction, to compute expected lists without the code under test. */
interface Fact {
  hash: Hex;
  blockNumber: number;
  index: number;
  value: bigint;
  to: Address | null;
  input: Hex;
  kinds: Kind[];
}

let db: TestDatabase;
let api: RunningApi;
const mined: Fact[] = [];
const pending: (Fact & { insertedAt: string; gasPrice: bigint | null })[] = [];

const hashOf = (label: string): Hex => keccak256(toHex(label));

before(async () => {
  db = await createTestDatabase();
  const bundles = syntheticChain({ from: 1n, to: BigInt(HEAD), transactionsPerBlock: (n) => (n <= 50n ? 3 : 0) });
  const created = new Set<Address>();
  const tokens: Address[] = [];
  const transferTransactions: Hex[] = [];
  for (const bundle of bundles) {
    const n = Number(bundle.block.number);
    for (const tx of bundle.transactions) {
      if (tx.index === 0) {
        tx.to = contract;
        tx.input = `${fiftySelector}00000001`;
        tx.value = 0n;
      } else if (tx.index === 1) {
        const selector = [selectors.transfer, selectors.approve, selectors.mint][n % 3]!;
        tx.to = contract;
        tx.input = `${selector}0000000000000000000000000000000000000000000000000000000000000001`;
        tx.value = BigInt(n % 2);
        if (n % 13 === 0) tx.status = 0;
        if (selector === selectors.transfer) transferTransactions.push(tx.hash);
      } else if (n % 10 === 0) {
        tx.to = null;
        tx.createdContract = syntheticAddress(`created${n}`);
        tx.input = '0x6080604052';
        tx.value = 0n;
        created.add(tx.createdContract);
        if (n % 20 === 0) {
          tokens.push(tx.createdContract);
          transferTransactions.push(tx.hash);
        }
      } else if (n % 7 === 0) {
        tx.to = contract;
        tx.input = selectors.multicall;
      } else if (n % 11 === 0) {
        tx.to = contract;
        tx.input = `${selectors.commit}ff`;
      } else {
        tx.to = syntheticAddress(`eoa${n}`);
        tx.input = '0x';
        tx.value = BigInt(n % 4);
        if (n === 45) {
          // Free of charge, as some chains allow: nothing is burnt.
          tx.gasPrice = 0n;
          tx.maxFeePerGas = 0n;
          tx.maxPriorityFeePerGas = 0n;
        }
      }
    }
    bundle.addresses = [
      { hash: contract, isContract: true },
      ...bundle.transactions.flatMap((t) => (t.createdContract ? [{ hash: t.createdContract, isContract: true }] : [])),
    ];
  }
  await writeBlockBundles(db.pool, bundles);
  await db.pool.query(`INSERT INTO tokens (address, type) SELECT decode(substr(a, 3), 'hex'), 'ERC-20' FROM unnest($1::text[]) a`, [
    tokens,
  ]);
  await db.pool.query(
    `INSERT INTO token_transfers (block_hash, log_index, batch_index, block_number, transaction_hash, transaction_index,
                                  token_address, token_type, from_address, to_address, amount)
     SELECT block_hash, 0, 0, block_number, hash, index, '\\x01', 'ERC-20', from_address, '\\x02', 1
     FROM transactions WHERE hash = ANY($1::bytea[])`,
    [transferTransactions.map(bytea)],
  );

  for (const bundle of bundles) {
    for (const tx of bundle.transactions) {
      const factKinds: Kind[] = [];
      if (tx.value > 0n) factKinds.push('coin_transfer');
      if (tx.to === contract || (tx.to !== null && created.has(tx.to))) factKinds.push('contract_call');
      if (tx.to === null) factKinds.push('contract_creation');
      if (tx.createdContract !== null && tokens.includes(tx.createdContract)) factKinds.push('token_creation');
      if (transferTransactions.includes(tx.hash)) factKinds.push('token_transfer');
      mined.push({
        hash: tx.hash,
        blockNumber: Number(tx.blockNumber),
        index: tx.index,
        value: tx.value,
        to: tx.to,
        input: tx.input,
        kinds: factKinds,
      });
    }
  }
  mined.sort((a, b) => b.blockNumber - a.blockNumber || b.index - a.index);

  // 75 pool transactions; three at a time share an inserted_at, so that the hash tiebreaker matters.
  for (let i = 0; i < 75; i++) {
    const to = i % 5 === 0 ? null : i % 5 === 1 ? contract : syntheticAddress(`pool-eoa${i}`);
    const value = BigInt(i % 2);
    const factKinds: Kind[] = [];
    if (value > 0n) factKinds.push('coin_transfer');
    if (to === contract) factKinds.push('contract_call');
    if (to === null) factKinds.push('contract_creation');
    const millis = String(Math.floor(i / 3)).padStart(3, '0');
    pending.push({
      hash: hashOf(`pool${i}`),
      blockNumber: 0,
      index: 0,
      value,
      to,
      input: i % 4 === 0 ? `${selectors.approve}00` : '0x',
      kinds: factKinds,
      insertedAt: `2024-05-01T12:00:00.${millis}123Z`,
      gasPrice: i % 3 === 0 ? null : 1_000_000_000n,
    });
  }
  // What the trace stage records for two of the failed calls (blocks 26 and 39; block 13's stays untraced).
  await db.pool.query(
    `UPDATE transactions SET error = 'execution reverted', revert_reason = '\\x08c379a0' WHERE block_number = 26 AND index = 1`,
  );
  await db.pool.query(`UPDATE transactions SET error = 'out of gas' WHERE block_number = 39 AND index = 1`);
  for (const p of pending) {
    await db.pool.query(
      `INSERT INTO pending_transactions (hash, inserted_at, from_address, to_address, nonce, type, value, gas_limit,
                                         gas_price, max_fee_per_gas, max_priority_fee_per_gas, input)
       VALUES ($1, $2, $3, $4, 7, 2, $5, 21000, $6, 2000000000, 3, $7)`,
      [
        bytea(p.hash),
        p.insertedAt,
        bytea(syntheticAddress('pool-sender')),
        p.to === null ? null : bytea(p.to),
        p.value.toString(),
        p.gasPrice?.toString() ?? null,
        bytea(p.input),
      ],
    );
  }
  pending.sort((a, b) => (a.insertedAt === b.insertedAt ? (a.hash < b.hash ? 1 : -1) : a.insertedAt < b.insertedAt ? 1 : -1));
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

const hashes = (items: { hash: string }[]) => items.map((item) => item.hash);
const selectorOf = (input: Hex) => input.slice(0, 10);

function assertPaging(list: Awaited<ReturnType<typeof collectList>>, expectedLength: number, validated = true): void {
  assert.equal(list.items.length, expectedLength);
  assert.equal(new Set(hashes(list.items)).size, expectedLength, 'no transaction repeated');
  assertFullPages(list);
  for (const params of list.nextPageParams) {
    assert.deepEqual(Object.keys(params), validated ? ['block_number', 'index', 'items_count'] : ['hash', 'inserted_at', 'items_count']);
    assert.equal(params.items_count, 50);
  }
}

test('the validated list pages through every transaction, newest first, with next_page_params null at the end', async () => {
  const list = await collectList(api, '/api/v2/transactions');
  assertPaging(list, 150);
  assert.deepEqual(list.pageSizes, [50, 50, 50]);
  assert.deepEqual(hashes(list.items), hashes(mined));
  const last = mined[49]!;
  assert.deepEqual(list.nextPageParams[0], { block_number: last.blockNumber, index: last.index, items_count: 50 });
});

test('filter=validated and empty filter values mean the default list', async () => {
  const plain = await api.get('/api/v2/transactions');
  for (const query of ['?filter=validated', '?filter=', '?type=', '?method=', '?filter=&type=&method=', '?type=,', '?cachebuster=1']) {
    const response = await api.get(`/api/v2/transactions${query}`);
    assert.equal(response.status, 200, query);
    assert.deepEqual(response.body, plain.body, query);
  }
});

for (const kind of kinds) {
  test(`type=${kind} lists exactly the transactions of that kind, across pages`, async () => {
    const list = await collectList(api, '/api/v2/transactions', { type: kind });
    const expected = mined.filter((f) => f.kinds.includes(kind));
    assert.notEqual(expected.length, 0);
    assertPaging(list, expected.length);
    assert.deepEqual(hashes(list.items), hashes(expected));
    for (const item of list.items)
      assert.ok(item.transaction_types.includes(kind), `${item.hash} is ${kind}; its types are ${item.transaction_types.join(', ')}`);
  });
}

test('a type list is the union of its kinds (creations are kept alongside contract calls)', async () => {
  for (const combination of [
    ['contract_call', 'contract_creation'],
    ['coin_transfer', 'token_creation'],
    ['token_transfer', 'contract_creation', 'coin_transfer'],
    ['contract_creation', 'token_creation'],
  ] as Kind[][]) {
    const list = await collectList(api, '/api/v2/transactions', { type: combination.join(',') });
    const expected = mined.filter((f) => f.kinds.some((k) => combination.includes(k)));
    assert.deepEqual(hashes(list.items), hashes(expected), combination.join(','));
  }
});

for (const [name, selector] of Object.entries(selectors)) {
  test(`method=${name} lists the transactions calling ${selector}`, async () => {
    const list = await collectList(api, '/api/v2/transactions', { method: name });
    const expected = mined.filter((f) => selectorOf(f.input) === selector);
    assert.notEqual(expected.length, 0);
    assert.deepEqual(hashes(list.items), hashes(expected));
    for (const item of list.items) assert.equal(item.method, name);
  });
}

test('method takes raw selectors, with or without 0x, in any case, and lists of them', async () => {
  const transfers = hashes(mined.filter((f) => selectorOf(f.input) === selectors.transfer));
  for (const value of ['0xa9059cbb', 'a9059cbb', '0xA9059CBB', 'A9059cbb', 'transfer,0xa9059cbb']) {
    const list = await collectList(api, '/api/v2/transactions', { method: value });
    assert.deepEqual(hashes(list.items), transfers, value);
  }
  const mixed = await collectList(api, '/api/v2/transactions', { method: 'approve,0x40C10F19,commit' });
  const wanted: string[] = [selectors.approve, selectors.mint, selectors.commit];
  assert.deepEqual(hashes(mixed.items), hashes(mined.filter((f) => wanted.includes(selectorOf(f.input)))));
});

test('a list of exactly 50 transactions is one page with next_page_params null', async () => {
  const response = await api.get(`/api/v2/transactions?method=${fiftySelector}`);
  assert.equal(response.status, 200);
  assert.equal(response.body.items.length, 50);
  assert.equal(response.body.next_page_params, null);
  assert.deepEqual(
    response.body.items
      .filter((item: { method: string }) => item.method !== fiftySelector)
      .map((item: { hash: string; method: string }) => [item.hash, item.method]),
    [],
    `items whose method is not ${fiftySelector}`,
  );
});

test('type and method filters combine with AND', async () => {
  const list = await collectList(api, '/api/v2/transactions', { type: 'coin_transfer', method: 'transfer,approve' });
  const expected = mined.filter(
    (f) => f.kinds.includes('coin_transfer') && [selectors.transfer, selectors.approve].includes(selectorOf(f.input) as never),
  );
  assert.notEqual(expected.length, 0);
  assert.deepEqual(hashes(list.items), hashes(expected));
});

test('a validated item carries every field with Blockscout values', async () => {
  // Block 47, index 2: 3 wei sent to an address that is not a contract.
  const { body } = await api.get('/api/v2/transactions');
  const item = body.items.find((i: { block_number: number; position: number }) => i.block_number === 47 && i.position === 2);
  assert.ok(item);
  const fact = mined.find((f) => f.blockNumber === 47 && f.index === 2)!;
  assert.equal(item.hash, fact.hash);
  assert.equal(item.confirmations, HEAD - 47 + 1);
  assert.deepEqual(item.confirmation_duration, [0, 12000]);
  assert.equal(item.timestamp, expectedTimestamp(1_700_000_000 + 47 * 12));
  assert.deepEqual(item.fee, { type: 'actual', value: (21_000n * 1_000_000_002n).toString() });
  assert.equal(item.gas_price, '1000000002');
  assert.equal(item.transaction_burnt_fee, (21_000n * 1_000_000_000n).toString());
  assert.equal(item.priority_fee, (21_000n * 2n).toString());
  assert.equal(item.base_fee_per_gas, '1000000000');
  assert.equal(item.max_fee_per_gas, '2000000000');
  assert.equal(item.max_priority_fee_per_gas, '2');
  assert.equal(item.gas_limit, 21000);
  assert.equal(item.gas_used, '21000');
  assert.equal(item.value, '3');
  assert.equal(item.nonce, 47 * 100 + 2);
  assert.equal(item.type, 2);
  assert.equal(item.status, 'ok');
  assert.equal(item.result, 'success');
  assert.equal(item.revert_reason, null);
  assert.equal(item.raw_input, fact.input);
  assert.equal(item.to.hash.toLowerCase(), syntheticAddress('eoa47'));
  assert.notEqual(item.to.hash, item.to.hash.toLowerCase(), 'checksummed');
  assert.equal(item.to.is_contract, false);
  assert.deepEqual(item.transaction_types, ['coin_transfer']);
  assert.equal(item.method, null, 'no method for a call to an address that is not a contract');
  assert.equal(item.created_contract, null);
  assert.deepEqual(item.actions, []);
  assert.equal(item.token_transfers, null);
  assert.equal(item.token_transfers_overflow, null);
  assert.equal(item.decoded_input, null);
  assert.equal(item.exchange_rate, null);
  assert.equal(item.transaction_tag, null);
  assert.equal(item.has_error_in_internal_transactions, null);
  assert.deepEqual(item.from, expectedAddressInfo(item.from.hash));
  assert.equal(item.from.hash.toLowerCase(), syntheticAddress('sender2'));
  const sorted = (keys: string[]) => [...keys].sort();
  assert.deepEqual(Object.keys(body), ['items', 'next_page_params']);
  assert.deepEqual(Object.keys(item), sorted(Object.keys(item)), 'keys in alphabetical order');
  assert.deepEqual(Object.keys(item.from), sorted(Object.keys(item.from)));
  assert.deepEqual(Object.keys(item.fee), ['type', 'value']);
});

test('a transaction with a zero max fee burns nothing', async () => {
  const { body } = await api.get('/api/v2/transactions?block_number=46&index=0');
  const free = body.items.find((i: { block_number: number; position: number }) => i.block_number === 45 && i.position === 2);
  assert.equal(free.max_fee_per_gas, '0');
  assert.equal(free.transaction_burnt_fee, '0');
  assert.deepEqual(free.fee, { type: 'actual', value: '0' });
  assert.equal(free.gas_price, '0');
});

test('creations, token creations, failed calls and contract calls render as Blockscout renders them', async () => {
  const { items } = (await api.get('/api/v2/transactions?type=token_creation')).body;
  const creation = items[0];
  assert.equal(creation.to, null);
  assert.equal(creation.created_contract.is_contract, true);
  assert.equal(creation.created_contract.hash.toLowerCase(), syntheticAddress('created40').toLowerCase());
  assert.deepEqual(creation.transaction_types, ['contract_creation', 'token_creation', 'token_transfer']);
  assert.equal(creation.method, null);

  const reverted = (await api.get('/api/v2/transactions?method=mint')).body.items.find(
    (i: { block_number: number }) => i.block_number === 26,
  );
  assert.equal(reverted.status, 'error');
  assert.equal(reverted.result, 'execution reverted');
  assert.deepEqual(reverted.revert_reason, { raw: '0x08c379a0' });
  assert.equal(reverted.to.is_contract, true);
  assert.equal(reverted.method, 'mint');
  assert.deepEqual(reverted.transaction_types, ['contract_call']);

  const outOfGas = (await api.get('/api/v2/transactions?method=transfer')).body.items.find(
    (i: { block_number: number }) => i.block_number === 39,
  );
  assert.equal(outOfGas.status, 'error');
  assert.equal(outOfGas.result, 'out of gas');
  assert.equal(outOfGas.revert_reason, null);

  const untraced = (await api.get('/api/v2/transactions?method=approve')).body.items.find(
    (i: { block_number: number }) => i.block_number === 13,
  );
  assert.equal(untraced.status, 'error');
  assert.equal(untraced.result, 'awaiting_internal_transactions');
  assert.equal(untraced.revert_reason, null);

  const unknownSelector = (await api.get(`/api/v2/transactions?method=${fiftySelector}`)).body.items[0];
  assert.equal(unknownSelector.method, fiftySelector);
});

test('the pending list pages by (inserted_at, hash) desc with pool-transaction fields', async () => {
  const list = await collectList(api, '/api/v2/transactions', { filter: 'pending' });
  assertPaging(list, 75, false);
  assert.deepEqual(list.pageSizes, [50, 25]);
  assert.deepEqual(hashes(list.items), hashes(pending));
  assert.deepEqual(list.nextPageParams[0], { hash: pending[49]!.hash, inserted_at: pending[49]!.insertedAt, items_count: 50 });

  const item = list.items.find((i: { hash: string }) => i.hash === pending.find((p) => p.gasPrice !== null && p.to === contract)!.hash);
  assert.equal(item.block_number, null);
  assert.equal(item.position, null);
  assert.equal(item.timestamp, null);
  assert.equal(item.status, null);
  assert.equal(item.result, 'pending');
  assert.equal(item.confirmations, 0);
  assert.deepEqual(item.confirmation_duration, []);
  assert.deepEqual(item.fee, { type: 'maximum', value: (21_000n * 1_000_000_000n).toString() });
  assert.equal(item.gas_used, null);
  assert.equal(item.base_fee_per_gas, null);
  assert.equal(item.priority_fee, null);
  assert.equal(item.transaction_burnt_fee, null);
  assert.equal(item.is_pending_update, null);
  assert.equal(item.to.is_contract, true);
  assert.deepEqual(item.transaction_types, item.value === '0' ? ['contract_call'] : ['coin_transfer', 'contract_call']);
  const unpriced = list.items.find((i: { hash: string }) => i.hash === pending.find((p) => p.gasPrice === null)!.hash);
  assert.deepEqual(unpriced.fee, { type: 'maximum', value: null });
  const approveToEoa = list.items.find((i: { hash: string }) => i.hash === hashOf('pool4'));
  assert.equal(approveToEoa.raw_input, `${selectors.approve}00`);
  assert.equal(approveToEoa.method, null, 'no method for input sent to an address that is not a contract');
});

test('the pending list takes the type and method filters', async () => {
  for (const kind of kinds) {
    const list = await collectList(api, '/api/v2/transactions', { filter: 'pending', type: kind });
    assert.deepEqual(hashes(list.items), hashes(pending.filter((p) => p.kinds.includes(kind))), kind);
  }
  const approvals = await collectList(api, '/api/v2/transactions', { filter: 'pending', method: 'approve' });
  assert.deepEqual(hashes(approvals.items), hashes(pending.filter((p) => selectorOf(p.input) === selectors.approve)));
  const both = await collectList(api, '/api/v2/transactions', {
    filter: 'pending',
    method: '095ea7b3',
    type: 'contract_creation,coin_transfer',
  });
  assert.deepEqual(
    hashes(both.items),
    hashes(pending.filter((p) => selectorOf(p.input) === selectors.approve && (p.to === null || p.value > 0n))),
  );
});

test('the validated list ignores the pending keyset and the pending list the validated one', async () => {
  const first = await api.get(`/api/v2/transactions?inserted_at=2024-05-01T12:00:00.000000Z&hash=0x${'0'.repeat(64)}`);
  assert.deepEqual(hashes(first.body.items), hashes(mined.slice(0, 50)));
  const pool = await api.get('/api/v2/transactions?filter=pending&block_number=1&index=0');
  assert.deepEqual(hashes(pool.body.items), hashes(pending.slice(0, 50)));
});

test('items_count from 1 to 50 is accepted and changes nothing', async () => {
  const plain = await api.get('/api/v2/transactions');
  for (const count of [1, 10, 50]) assert.deepEqual((await api.get(`/api/v2/transactions?items_count=${count}`)).body, plain.body);
});

/** The 422 body's pointers, in order. */
async function invalid(path: string): Promise<string[]> {
  const response = await api.get(path);
  assert.equal(response.status, 422, `${path}: ${response.text}`);
  for (const error of response.body.errors) {
    assert.equal(error.title, 'Invalid value');
    assert.equal(typeof error.detail, 'string');
    assert.notEqual(error.detail, '');
  }
  return response.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer);
}

test('values outside the allowed sets are a 422 naming the parameter', async () => {
  assert.deepEqual(await invalid('/api/v2/transactions?filter=mined'), ['/filter']);
  assert.deepEqual(await invalid('/api/v2/transactions?filter=pending,validated'), ['/filter']);
  assert.deepEqual(await invalid('/api/v2/transactions?type=erc20'), ['/type']);
  assert.deepEqual(await invalid('/api/v2/transactions?type=coin_transfer,blob'), ['/type']);
  assert.deepEqual(await invalid('/api/v2/transactions?type=COIN_TRANSFER'), ['/type']);
  assert.deepEqual(await invalid('/api/v2/transactions?method=swap'), ['/method'], 'a name no verified ABI nor signature has');
  assert.deepEqual(await invalid('/api/v2/transactions?method=not-a-name'), ['/method']);
  assert.deepEqual(await invalid('/api/v2/transactions?method=0xa9059c'), ['/method']);
  assert.deepEqual(await invalid('/api/v2/transactions?method=0xa9059cbb00'), ['/method']);
  assert.deepEqual(await invalid('/api/v2/transactions?type=a&type=b'), ['/type']);
  assert.deepEqual(await invalid('/api/v2/transactions?filter=x&type=y&method=0xz'), ['/filter', '/type', '/method']);
  const { body } = await api.get('/api/v2/transactions?type=erc20');
  assert.match(body.errors[0].detail, /token_transfer/);
});

test('malformed and incomplete paging parameters are a 422 naming each', async () => {
  assert.deepEqual(await invalid('/api/v2/transactions?block_number=abc&index=1'), ['/block_number']);
  assert.deepEqual(await invalid('/api/v2/transactions?block_number=-1&index=1'), ['/block_number']);
  assert.deepEqual(await invalid('/api/v2/transactions?block_number=1.5&index=1'), ['/block_number']);
  assert.deepEqual(await invalid('/api/v2/transactions?block_number=&index='), ['/block_number', '/index']);
  assert.deepEqual(await invalid('/api/v2/transactions?block_number=1&index=99999999999'), ['/index']);
  assert.deepEqual(await invalid('/api/v2/transactions?block_number=10'), ['/index']);
  assert.deepEqual(await invalid('/api/v2/transactions?index=2&items_count=50'), ['/block_number']);
  assert.deepEqual(await invalid('/api/v2/transactions?items_count=0'), ['/items_count']);
  assert.deepEqual(await invalid('/api/v2/transactions?items_count=51'), ['/items_count']);
  assert.deepEqual(await invalid('/api/v2/transactions?items_count=ten'), ['/items_count']);
  assert.deepEqual(await invalid('/api/v2/transactions?filter=pending&inserted_at=2024-05-01T12:00:00Z'), ['/hash']);
  assert.deepEqual(await invalid(`/api/v2/transactions?filter=pending&hash=0x${'a'.repeat(64)}`), ['/inserted_at']);
  assert.deepEqual(await invalid('/api/v2/transactions?filter=pending&inserted_at=yesterday&hash=0x1'), ['/inserted_at', '/hash']);
  assert.deepEqual(await invalid(`/api/v2/transactions?filter=pending&inserted_at=0000-01-01T00:00:00Z&hash=0x${'a'.repeat(64)}`), [
    '/inserted_at',
  ]);
  assert.deepEqual(await invalid(`/api/v2/transactions?filter=pending&inserted_at=2024-13-01T00:00:00Z&hash=0x${'a'.repeat(64)}`), [
    '/inserted_at',
  ]);
});

test('a keyset past the end, or at the very start of the chain, gives an empty last page', async () => {
  for (const query of [
    { block_number: 0, index: 0 },
    { block_number: 1, index: 0 },
  ]) {
    const response = await api.get(`/api/v2/transactions${queryString(query)}`);
    assert.deepEqual(response.body, { items: [], next_page_params: null });
  }
  const deep = await api.get(`/api/v2/transactions${queryString({ block_number: 1, index: 2 })}`);
  assert.deepEqual(hashes(deep.body.items), hashes(mined.filter((f) => f.blockNumber === 1 && f.index < 2)));
});
