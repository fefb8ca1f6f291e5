import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import type { Hex } from 'viem';
import { startCoinBalanceStage } from '../../src/indexer/stages/coin-balance-stage.js';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { waitForMined } from '../support/mined.js';
import { type TokenChain, indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, assertFullPages, collectList, startApi } from './http.js';

/** What the list's order depends on, for one verified contract. */
interface Expected {
  address: string;
  id: number;
  language: string;
  /** The node's balance at the indexed head; null where none was read (an address the chain never touched). */
  balance: bigint | null;
  transactionsCount: number;
}

/** Blockscout's order: by the value (a missing balance below every balance), the latest verified first among equals. */
function expectedOrder(rows: Expected[], by: 'balance' | 'transactions_count', order: 'asc' | 'desc'): string[] {
  const value = (r: Expected): bigint => (by === 'balance' ? (r.balance ?? -1n) : BigInt(r.transactionsCount));
  return [...rows]
    .sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      if (x !== y) return (x < y ? -1 : 1) * (order === 'asc' ? 1 : -1);
      return b.id - a.id;
    })
    .map((r) => r.address);
}

describe('the verified contracts list sorted by balance and transaction count', () => {
  let chain: TokenChain;
  let db: TestDatabase;
  let api: RunningApi;
  let stage: BackgroundLoop;
  let rows: Expected[];

  before(async () => {
    chain = await startTokenChain();
    // More addresses than a page holds, with balances that tie (seven amounts, zero among them).
    const [sender] = await chain.client.request<string[]>('eth_accounts', []);
    for (let i = 1; i <= 56; i++) {
      const to = `0x${(0xbeef0000 + i).toString(16).padStart(40, '0')}`;
      const hash = await chain.client.request<Hex>('eth_sendTransaction', [
        { from: sender, to, value: `0x${((i % 7) * 1e15).toString(16)}` },
      ]);
      await waitForMined(chain.client, hash);
    }
    db = await createTestDatabase();
    await indexTokenChain(chain, db);
    stage = startCoinBalanceStage({
      pool: db.pool,
      client: chain.client,
      logger: pino({ level: 'silent' }),
      batchSize: 20,
      pollIntervalMs: 50,
      backoff: { initialMs: 10, maxMs: 100 },
    });
    await waitFor(
      async () => Number((await db.pool.query('SELECT count(*) AS n FROM coin_balance_marks')).rows[0].n) === 0,
      'every marked coin balance is read',
      { timeoutMs: 60_000 },
    );
    // Every address of the chain (those with a balance read or counters), and a dozen it never touched (no balance read, no transactions), as
    // verified contracts in an order unrelated to their balances: more than a page, with ties.
    await db.pool.query(
      `INSERT INTO verified_contracts (address, code_hash, name, file_path, language, compiler_version, compiler_settings,
         optimization_enabled, evm_version, source_code, additional_sources, external_libraries, match_type, method, verified_at)
       SELECT a, '\\x00', 'Seeded' || n, 'Seeded.sol', CASE WHEN n % 5 = 0 THEN 'vyper' ELSE 'solidity' END, 'v0.8.37+commit.f401782d', '{}',
              false, 'default', '', '[]', '[]', 'full', 'flattened-code', now()
       FROM (SELECT a, row_number() OVER (ORDER BY md5(a::text)) AS n
             FROM (SELECT address AS a FROM address_current_coin_balances UNION SELECT address FROM address_counters
                   UNION ALL SELECT decode(lpad(to_hex(i), 40, '0'), 'hex') FROM generate_series(1, 12) i) s) t
       ORDER BY n`,
    );
    const { rows: stored } = await db.pool.query<{
      address: Buffer;
      id: string;
      language: string;
      read: boolean;
      transactions_count: string;
    }>(
      `SELECT v.address, v.id, v.language, b.address IS NOT NULL AS read, coalesce(c.transactions_count, 0) AS transactions_count
       FROM verified_contracts v
       LEFT JOIN address_current_coin_balances b ON b.address = v.address
       LEFT JOIN address_counters c ON c.address = v.address`,
    );
    rows = await Promise.all(
      stored.map(async (r) => {
        const address = `0x${r.address.toString('hex')}`;
        // Nothing is mined after indexing: the indexed head is the node's latest block.
        const balance = r.read ? BigInt(await chain.client.request<string>('eth_getBalance', [address, 'latest'])) : null;
        return { address, id: Number(r.id), language: r.language, balance, transactionsCount: Number(r.transactions_count) };
      }),
    );
    assert.ok(rows.length > 60, `${rows.length} verified contracts: more than a page`);
    assert.ok(rows.some((r) => r.balance === null) && rows.some((r) => r.balance === 0n || r.balance === null));
    api = await startApi(db.pool);
  });

  after(async () => {
    await stage?.stop();
    await api?.close();
    await db?.drop();
    await chain?.anvil.stop();
  });

  for (const by of ['balance', 'transactions_count'] as const) {
    for (const order of ['desc', 'asc'] as const) {
      test(`sort=${by}&order=${order}: every page in Blockscout's order, the values the node and the counters hold`, async () => {
        const list = await collectList(api, '/api/v2/smart-contracts', { sort: by, order });
        assertFullPages(list);
        assert.ok(list.pageSizes.length >= 2, 'the walk crosses a page');
        const served = list.items.map((i: { address: { hash: string } }) => i.address.hash.toLowerCase());
        assert.deepEqual(served, expectedOrder(rows, by, order));
        const byAddress = new Map(rows.map((r) => [r.address, r]));
        for (const item of list.items as { address: { hash: string }; coin_balance: string | null; transactions_count: number }[]) {
          const row = byAddress.get(item.address.hash.toLowerCase())!;
          assert.equal(item.coin_balance, row.balance === null ? null : row.balance.toString(), item.address.hash);
          assert.equal(item.transactions_count, row.transactionsCount, item.address.hash);
        }
        const first = list.nextPageParams[0]!;
        assert.deepEqual(
          Object.keys(first).sort(),
          [by === 'balance' ? 'coin_balance' : 'transactions_count', 'items_count', 'smart_contract_id'].sort(),
        );
      });
    }
  }

  test('a sort keeps the language filter and the search', async () => {
    const vyper = await collectList(api, '/api/v2/smart-contracts', { sort: 'balance', order: 'asc', filter: 'vyper' });
    assert.deepEqual(
      vyper.items.map((i: { address: { hash: string } }) => i.address.hash.toLowerCase()),
      expectedOrder(
        rows.filter((r) => r.language === 'vyper'),
        'balance',
        'asc',
      ),
    );
    const prefix = await collectList(api, '/api/v2/smart-contracts', {
      sort: 'transactions_count',
      q: '0x00000000000000000000000000000000000000',
    });
    assert.deepEqual(
      prefix.items.map((i: { address: { hash: string } }) => i.address.hash.toLowerCase()),
      expectedOrder(
        rows.filter((r) => r.address.startsWith('0x00000000000000000000000000000000000000')),
        'transactions_count',
        'desc',
      ),
    );
  });

  test('a bad sort or order, or a partial keyset, is a 422 naming the parameter', async () => {
    for (const [query, param] of [
      ['sort=name', 'sort'],
      ['sort=balance&order=up', 'order'],
      ['order=sideways', 'order'],
      ['sort=balance&coin_balance=5', 'smart_contract_id'],
      ['sort=transactions_count&smart_contract_id=3', 'transactions_count'],
      ['sort=balance&coin_balance=-1&smart_contract_id=3', 'coin_balance'],
    ] as const) {
      const answer = await api.get(`/api/v2/smart-contracts?${query}`);
      assert.equal(answer.status, 422, query);
      assert.ok(JSON.stringify(answer.body).includes(param), `${query}: ${answer.text}`);
    }
  });
});
