import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { keccak256 } from 'viem';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { startContractCodeStage } from '../../src/indexer/stages/contract-code-stage.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { type TokenChain, indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';

let chain: TokenChain;
let db: TestDatabase;
const stages: BackgroundLoop[] = [];

const silent = pino({ level: process.env.TEST_LOG ?? 'silent' });
const count = async (sql: string): Promise<number> => Number((await db.pool.query(sql)).rows[0].n);
const allRead = () =>
  waitFor(async () => (await count('SELECT count(*) AS n FROM contract_code_marks')) === 0, 'every marked contract code is read', {
    timeoutMs: 60_000,
  });

before(async () => {
  chain = await startTokenChain();
  db = await createTestDatabase();
  await indexTokenChain(chain, db);
  // Traced, so that the contracts other contracts created are known too.
  stages.push(
    startTraceStage({
      pool: db.pool,
      client: chain.client,
      traceMethod: 'trace_block',
      logger: silent,
      batchSize: 5,
      concurrency: 2,
      pollIntervalMs: 20,
      backoff: { initialMs: 10, maxMs: 100 },
    }),
  );
  await waitFor(async () => (await count('SELECT count(*) AS n FROM blocks WHERE traced_at IS NULL')) === 0, 'every block traced');
  stages.push(
    startContractCodeStage({
      pool: db.pool,
      client: chain.client,
      logger: silent,
      batchSize: 3,
      pollIntervalMs: 20,
      backoff: { initialMs: 10, maxMs: 100 },
    }),
  );
  await allRead();
});

after(async () => {
  for (const stage of stages) await stage.stop();
  await db?.drop();
  await chain?.anvil.stop();
});

test("every contract's stored code is the node's eth_getCode at the indexed head, kept once per hash", async () => {
  const { rows } = await db.pool.query<{ address: string; code: string; code_hash: string; block_number: string }>(
    `SELECT '0x' || encode(a.hash, 'hex') AS address, '0x' || encode(b.code, 'hex') AS code,
            '0x' || encode(c.code_hash, 'hex') AS code_hash, c.block_number
     FROM addresses a JOIN contract_codes c ON c.address = a.hash JOIN bytecodes b ON b.hash = c.code_hash
     WHERE a.is_contract ORDER BY 1`,
  );
  const contracts = await count('SELECT count(*) AS n FROM addresses WHERE is_contract');
  assert.equal(rows.length, contracts, 'a code row for every contract');
  const created = await count('SELECT count(*) AS n FROM internal_transactions WHERE created_contract IS NOT NULL AND index > 0');
  assert.ok(created > 0, 'the chain has contracts created by contracts');
  const head = BigInt(await chain.client.request<string>('eth_blockNumber', []));
  for (const row of rows) {
    assert.equal(BigInt(row.block_number), head, row.address);
    assert.equal(
      row.code,
      (await chain.client.request<string>('eth_getCode', [row.address, `0x${head.toString(16)}`])).toLowerCase(),
      row.address,
    );
    assert.equal(row.code_hash, keccak256(row.code as `0x${string}`), row.address);
  }
  assert.equal(await count('SELECT count(*) AS n FROM bytecodes'), new Set(rows.map((r) => r.code_hash)).size);
});

test('a retraction has the code read at the heights it takes off read again, at the new head', async () => {
  const head = BigInt(await chain.client.request<string>('eth_blockNumber', []));
  await retractBlocksFrom(db.pool, head);
  const marked = await count('SELECT count(*) AS n FROM contract_code_marks');
  assert.equal(marked, await count('SELECT count(*) AS n FROM contract_codes'), 'every code read at the retracted head is marked');
  // The chain's node keeps the state of its head alone: the marks wait until the index reaches a new head.
  await chain.client.request('anvil_mine', ['0x1']);
  await indexTokenChain(chain, db);
  await allRead();
  assert.equal(await count(`SELECT count(*) AS n FROM contract_codes WHERE block_number = ${head + 1n}`), marked);
});
