import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { startListCheckpointStage } from '../../src/indexer/stages/list-checkpoint-stage.js';
import type { Address, BlockBundle, TokenType } from '../../src/model.js';
import { buildListCheckpoints, findListScanWindow, writeListCheckpoints } from '../../src/store/list-checkpoints.js';
import { type ListWindow, listAddressTransactionsWindow, listTokenTransfersWindow } from '../../src/store/read/etherscan.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { inTransaction } from '../../src/store/transaction.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, bytea, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type Move, withTransfers } from '../support/token-moves.js';

/**
 * The checkpoints of the Etherscan-style account lists (txlist, tokentx, token1155tx): a page read from
 * them is the page read row by row, for every page, size, order and block range; they follow a
 * retraction and a new branch, and a block indexed below where their scan began makes the lists read
 * none until the scan has begun again.
 */

const INTERVAL = 8;
const busy = syntheticAddress('sender0');
const other = syntheticAddress('other');
const erc20 = syntheticAddress('erc20');
const erc721 = syntheticAddress('erc721');
const erc1155 = syntheticAddress('erc1155');

/**
 * Blocks `from`..`to`, three transactions each: the busy address sends the first; it also receives the
 * second in every fourth block, sends one to itself in every seventh, and creates a contract in every
 * eleventh. Its ERC-20 transfers go both ways (to itself in every fifth block), its ERC-1155 transfers
 * come in batches of three ids, and an ERC-721 transfer it is not party to is in every block.
 */
function blocks(from: bigint, to: bigint, salt?: string): BlockBundle[] {
  const chain = syntheticChain({
    from,
    to,
    transactionsPerBlock: () => 3,
    salt,
    parentHash: salt === undefined ? undefined : hashAt(from - 1n),
  });
  const shaped = chain.map((bundle) => {
    const n = Number(bundle.block.number);
    const [first, second, third] = bundle.transactions;
    const transactions = [
      { ...first!, to: n % 7 === 0 ? busy : first!.to },
      { ...second!, to: n % 4 === 0 ? busy : second!.to },
      n % 11 === 0 ? { ...third!, to: null, createdContract: busy } : third!,
    ];
    return { ...bundle, transactions };
  });
  const moves: Move[][] = shaped.map((bundle) => {
    const n = Number(bundle.block.number);
    const list: Move[] = [
      [erc20, 'ERC-20', busy, n % 5 === 0 ? busy : other, 1n, null],
      [erc721, 'ERC-721', other, other, 1n, BigInt(n)],
    ];
    if (n % 2 === 0) list.push([erc20, 'ERC-20', other, busy, 2n, null]);
    if (n % 3 === 0) {
      const log = list.length;
      for (const id of [1n, 2n, 3n]) list.push([erc1155, 'ERC-1155', other, busy, 1n, id, log, Number(id) - 1]);
    }
    return list;
  });
  return withTransfers(shaped, moves);
}

let hashes = new Map<bigint, string>();
const hashAt = (number: bigint) => hashes.get(number) as `0x${string}`;

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  const chain = blocks(1n, 120n);
  hashes = new Map(chain.map((b) => [b.block.number, b.block.hash]));
  await writeBlockBundles(db.pool, chain);
});
after(async () => {
  await db?.drop();
});

async function scanAll(): Promise<void> {
  for (;;) {
    const window = await findListScanWindow(db.pool, 17);
    if (window === null) return;
    assert.equal(await writeListCheckpoints(db.pool, window, INTERVAL), true);
  }
}

const range = (window: ListWindow) =>
  `${window.startBlock === null ? '' : `AND block_number >= ${window.startBlock}`} ${window.endBlock === null ? '' : `AND block_number <= ${window.endBlock}`}`;

/** The page row by row: the busy address's transactions, as block number and index. */
async function expectedTransactions(window: ListWindow): Promise<string[]> {
  const direction = window.descending ? 'DESC' : 'ASC';
  const { rows } = await db.pool.query<{ k: string }>(
    `SELECT block_number || ':' || index AS k FROM transactions
     WHERE $1 IN (from_address, to_address, created_contract) ${range(window)}
     ORDER BY block_number ${direction}, index ${direction} OFFSET $2 LIMIT $3`,
    [bytea(busy), (window.page - 1) * window.offset, window.offset],
  );
  return rows.map((r) => r.k);
}

async function expectedTransfers(type: TokenType, window: ListWindow): Promise<string[]> {
  const direction = window.descending ? 'DESC' : 'ASC';
  const { rows } = await db.pool.query<{ k: string }>(
    `SELECT block_number || ':' || log_index || ':' || coalesce(token_id::text, '-') AS k FROM token_transfers
     WHERE token_type = $2 AND $1 IN (from_address, to_address) ${range(window)}
     ORDER BY block_number ${direction}, log_index ${direction}, batch_index ${direction} OFFSET $3 LIMIT $4`,
    [bytea(busy), type, (window.page - 1) * window.offset, window.offset],
  );
  return rows.map((r) => r.k);
}

const readTransactions = async (window: ListWindow) =>
  (await listAddressTransactionsWindow(db.pool, busy as Address, window)).map((t) => `${t.blockNumber}:${t.index}`);
const readTransfers = async (type: TokenType, window: ListWindow) =>
  (await listTokenTransfersWindow(db.pool, { address: busy, token: null, type }, window)).map(
    (t) => `${t.blockNumber}:${t.logIndex}:${t.tokenId ?? '-'}`,
  );

/** Pages of every size from 1 to 25 rows, both orders, with and without a block range, up to past the end. */
function* windows(): Generator<ListWindow> {
  const ranges: [number | null, number | null][] = [
    [null, null],
    [30, null],
    [null, 90],
    [17, 101],
    [200, null],
  ];
  for (const [startBlock, endBlock] of ranges) {
    for (const descending of [false, true]) {
      for (const offset of [1, 7, 25]) {
        for (let page = 1; page * offset <= 260 + offset; page += offset === 1 ? 13 : 1) {
          yield { page, offset, descending, startBlock, endBlock };
        }
      }
    }
  }
}

/** Every window of every list read as the row-by-row page; how many of them differ, when `differ`. */
async function compareAll(differ = false): Promise<number> {
  let different = 0;
  for (const window of windows()) {
    const pairs: [string[], string[], string][] = [
      [await readTransactions(window), await expectedTransactions(window), 'transactions'],
      [await readTransfers('ERC-20', window), await expectedTransfers('ERC-20', window), 'ERC-20'],
      [await readTransfers('ERC-1155', window), await expectedTransfers('ERC-1155', window), 'ERC-1155'],
    ];
    for (const [read, expected, list] of pairs) {
      if (differ) different += JSON.stringify(read) === JSON.stringify(expected) ? 0 : 1;
      else assert.deepEqual(read, expected, `${list} ${JSON.stringify(window)}`);
    }
  }
  return different;
}

/**
 * The checkpoints every list should have: of each address with at least INTERVAL transactions (or token
 * transfers), its list's every INTERVAL-th row from the first.
 */
async function expectedCheckpoints(): Promise<string[]> {
  const { rows } = await db.pool.query<{ k: string }>(
    `SELECT list || ':' || encode(address, 'hex') || ':' || ordinal || ':' || block_number || ':' || index || ':' || batch_index AS k FROM (
       SELECT 'transactions' AS list, c.address,
              row_number() OVER (PARTITION BY c.address ORDER BY t.block_number, t.index) - 1 AS ordinal,
              t.block_number, t.index, 0 AS batch_index
       FROM address_counters c JOIN transactions t ON c.address IN (t.from_address, t.to_address, t.created_contract)
       WHERE c.transactions_count >= $1
       UNION ALL
       SELECT t.token_type, c.address,
              row_number() OVER (PARTITION BY c.address, t.token_type ORDER BY t.block_number, t.log_index, t.batch_index) - 1,
              t.block_number, t.log_index, t.batch_index
       FROM address_counters c JOIN token_transfers t ON c.address IN (t.from_address, t.to_address)
       WHERE c.token_transfers_count >= $1
     ) r WHERE ordinal % $1 = 0 ORDER BY k`,
    [INTERVAL],
  );
  return rows.map((r) => r.k);
}

/** Of every list with checkpoints, its last row up to the scan: its tail. */
async function expectedTails(): Promise<string[]> {
  const { rows } = await db.pool.query<{ k: string }>(
    `SELECT list || ':' || encode(address, 'hex') || ':' || (count(*) - 1) || ':' || max(block_number) AS k FROM (
       SELECT 'transactions' AS list, c.address, t.block_number
       FROM (SELECT DISTINCT list, address FROM list_checkpoints WHERE list = 'transactions') c
       JOIN transactions t ON c.address IN (t.from_address, t.to_address, t.created_contract)
       UNION ALL
       SELECT c.list, c.address, t.block_number
       FROM (SELECT DISTINCT list, address FROM list_checkpoints WHERE list <> 'transactions') c
       JOIN token_transfers t ON t.token_type = c.list AND c.address IN (t.from_address, t.to_address)
     ) r WHERE block_number <= (SELECT block_number FROM list_scan) GROUP BY list, address ORDER BY k`,
  );
  return rows.map((r) => r.k);
}

async function tails(): Promise<string[]> {
  const { rows } = await db.pool.query<{ k: string }>(
    `SELECT list || ':' || encode(address, 'hex') || ':' || ordinal || ':' || block_number AS k FROM list_tails ORDER BY k`,
  );
  return rows.map((r) => r.k);
}

async function checkpoints(): Promise<string[]> {
  const { rows } = await db.pool.query<{ k: string }>(
    `SELECT list || ':' || encode(address, 'hex') || ':' || ordinal || ':' || block_number || ':' || index || ':' || batch_index AS k
     FROM list_checkpoints ORDER BY k`,
  );
  return rows.map((r) => r.k);
}

describe('account list checkpoints', () => {
  test('the stage numbers every busy list, and only those, every INTERVAL-th row', async () => {
    const stage = (restMs: number) =>
      startListCheckpointStage({
        pool: db.pool,
        logger: pino({ level: 'silent' }),
        scanBlocks: 17,
        restMs,
        interval: INTERVAL,
        pollIntervalMs: 20,
      });
    // Seven runs of 17 blocks; the last block, a shorter run, waits for the rest to pass.
    const resting = stage(3_600_000);
    await resting.drained();
    await resting.stop();
    const scanned = async () => (await db.pool.query<{ block_number: string }>('SELECT block_number FROM list_scan')).rows[0]!.block_number;
    assert.equal(await scanned(), '119');
    const eager = stage(0);
    await eager.drained();
    await eager.stop();
    assert.equal(await scanned(), '120');
    assert.deepEqual(await checkpoints(), await expectedCheckpoints());
    assert.deepEqual(await tails(), await expectedTails());
    const { rows } = await db.pool.query<{ list: string; n: string }>(
      'SELECT list, count(*) AS n FROM list_checkpoints WHERE address = $1 GROUP BY list ORDER BY list',
      [bytea(busy)],
    );
    // 160 transactions, 180 ERC-20 transfers and 120 ERC-1155 transfers.
    assert.deepEqual(
      rows.map((r) => [r.list, Number(r.n)]),
      [
        ['ERC-1155', 15],
        ['ERC-20', 23],
        ['transactions', 20],
      ],
    );
  });

  test('a page from a checkpoint is the page read row by row', async () => {
    await compareAll();
  });

  test('the pages do start at the checkpoints', async () => {
    // Each checkpoint moved one row later: pages that start from one are one row off.
    await db.pool.query('UPDATE list_checkpoints SET ordinal = ordinal + 1');
    try {
      assert.ok((await compareAll(true)) > 100);
    } finally {
      await db.pool.query('UPDATE list_checkpoints SET ordinal = ordinal - 1');
    }
    await compareAll();
  });

  test('a retraction takes off the checkpoints and tails at and above its height; a new branch is numbered as the old', async () => {
    await retractBlocksFrom(db.pool, 90n);
    const { rows } = await db.pool.query<{ n: string; scanned: string }>(
      `SELECT (SELECT count(*) FROM list_checkpoints WHERE block_number >= 90) + (SELECT count(*) FROM list_tails WHERE block_number >= 90) AS n,
              (SELECT block_number FROM list_scan) AS scanned`,
    );
    assert.deepEqual([Number(rows[0]!.n), Number(rows[0]!.scanned)], [0, 89]);
    assert.deepEqual(await checkpoints(), await expectedCheckpoints());
    await compareAll();
    await writeBlockBundles(db.pool, blocks(90n, 130n, 'fork'));
    await scanAll();
    assert.deepEqual(await checkpoints(), await expectedCheckpoints());
    assert.deepEqual(await tails(), await expectedTails());
    await compareAll();
  });

  test('a block indexed below where the scan began: no page reads a checkpoint until the scan begins again', async () => {
    const [zero] = blocks(0n, 0n);
    await writeBlockBundles(db.pool, [zero!]);
    // Wrong checkpoints, were they read, would make pages differ.
    await db.pool.query('UPDATE list_checkpoints SET ordinal = ordinal + 1');
    await compareAll();
    await scanAll();
    const { rows } = await db.pool.query<{ from_block: string }>('SELECT from_block FROM list_scan');
    assert.equal(rows[0]!.from_block, '0');
    assert.deepEqual(await checkpoints(), await expectedCheckpoints());
    await compareAll();
  });

  test('numbered at once, as by the bulk ledger: the checkpoints and the scan the stage leaves, up to a gap; the stage goes on from there', async () => {
    // Blocks 0 to 130, then a gap up to 140.
    await writeBlockBundles(db.pool, blocks(140n, 150n));
    const scanState = async () => {
      const { rows } = await db.pool.query<{ from_block: string; block_number: string }>('SELECT from_block, block_number FROM list_scan');
      return { checkpoints: await checkpoints(), tails: await tails(), scan: rows };
    };
    await db.pool.query('DELETE FROM list_checkpoints');
    await db.pool.query('DELETE FROM list_scan');
    await scanAll();
    const byStage = await scanState();
    assert.deepEqual(byStage.scan, [{ from_block: '0', block_number: '130' }]);
    assert.ok(byStage.checkpoints.length > 50);
    await db.pool.query('UPDATE list_checkpoints SET ordinal = ordinal + 1');
    await inTransaction(db.pool, (client) => buildListCheckpoints(client, INTERVAL));
    assert.deepEqual(await scanState(), byStage);
    await writeBlockBundles(db.pool, blocks(131n, 139n));
    await scanAll();
    assert.deepEqual(await checkpoints(), await expectedCheckpoints());
    assert.deepEqual(await tails(), await expectedTails());
    await compareAll();
  });

  test('a run numbers a list on from its tail: a tail one row off puts the checkpoints after it one row off', async () => {
    await db.pool.query('UPDATE list_tails SET ordinal = ordinal + 1');
    await writeBlockBundles(db.pool, blocks(151n, 170n));
    await scanAll();
    assert.notDeepEqual(await checkpoints(), await expectedCheckpoints());
    // Numbered again from the first block.
    await db.pool.query('DELETE FROM list_scan');
    await scanAll();
    assert.deepEqual(await checkpoints(), await expectedCheckpoints());
    assert.deepEqual(await tails(), await expectedTails());
    await compareAll();
  });
});
