import type { Pool, PoolClient } from 'pg';
import type { Hex, TokenType } from '../model.js';
import { accountListKeys, accountListSides, checkpointColumns, fromKeyset, mergedKeys, withConditions } from './account-lists.js';
import { lockConsensusBlock } from './address-marks.js';
import { hexFromBytea } from './encode.js';
import { SqlParams } from './read/sql.js';
import { inRedoableTransaction, inTransaction } from './transaction.js';

/**
 * Every how many rows of a busy address's account list a checkpoint is kept: a page starts at most this
 * many rows past one. Only the lists of an address with at least this many transactions (or token
 * transfers) have checkpoints.
 */
export const LIST_CHECKPOINT_INTERVAL = 256;

/** A run of consensus blocks, without a gap, after the checkpoint stage's scan. */
export interface ListScanWindow {
  /** The last block scanned before (exclusive). */
  after: bigint;
  /** The last block of the run, and its hash (the run is dropped if it loses consensus meanwhile). */
  to: bigint;
  toHash: Hex;
}

/** Drops every checkpoint and tail, and has the scan begin again at `lowest`. */
async function beginScan(pool: Pool, lowest: bigint): Promise<bigint> {
  await inTransaction(pool, async (client) => {
    await client.query('DELETE FROM list_checkpoints');
    await client.query('DELETE FROM list_tails');
    await client.query(
      `INSERT INTO list_scan (one, from_block, block_number) VALUES (true, $1, $1::bigint - 1)
       ON CONFLICT (one) DO UPDATE SET from_block = excluded.from_block, block_number = excluded.block_number`,
      [lowest.toString()],
    );
  });
  return lowest - 1n;
}

/**
 * The next run of at most `maxBlocks` consensus blocks after the scan, stopping at the first block not
 * indexed yet; null when there is none. The scan begins at the lowest indexed block; a block indexed
 * below where it began (history indexed later) drops every checkpoint, and the scan begins again there.
 */
export async function findListScanWindow(pool: Pool, maxBlocks: number): Promise<ListScanWindow | null> {
  const scan = await pool.query<{ lowest: string | null; from_block: string | null; block_number: string | null }>(
    `SELECT (SELECT min(number) FROM blocks WHERE consensus)::text AS lowest,
            (SELECT from_block FROM list_scan)::text AS from_block, (SELECT block_number FROM list_scan)::text AS block_number`,
  );
  const { lowest, from_block: fromBlock, block_number: scanned } = scan.rows[0]!;
  if (lowest === null) return null;
  const after = fromBlock !== null && BigInt(lowest) >= BigInt(fromBlock) ? BigInt(scanned!) : await beginScan(pool, BigInt(lowest));
  const { rows } = await pool.query<{ number: string; hash: Buffer }>(
    'SELECT number, hash FROM blocks WHERE consensus AND number > $1 ORDER BY number LIMIT $2',
    [after.toString(), maxBlocks],
  );
  let last: { number: string; hash: Buffer } | undefined;
  for (const [i, row] of rows.entries()) {
    if (BigInt(row.number) !== after + 1n + BigInt(i)) break;
    last = row;
  }
  return last === undefined ? null : { after, to: BigInt(last.number), toHash: hexFromBytea(last.hash) };
}

/** The token types an account list is kept for (tokentx, tokennfttx, token1155tx). */
const listedTokenTypes: readonly TokenType[] = ['ERC-20', 'ERC-721', 'ERC-1155'];

/** The lists of one table: the transactions', or the token transfers' of each listed type. */
interface ListFamily {
  table: 'transactions' | 'token_transfers';
  /** The columns whose addresses a row adds to the list of. */
  parties: readonly string[];
  /** The list a row adds to. */
  list: string;
  /** Which of the address's counters counts (at least) the list's rows. */
  counter: string;
  /** A list's keys (its last checkpoint's are in l, numbered from the list's first row when it has none). */
  keys: readonly string[];
}

const families: readonly ListFamily[] = [
  {
    table: 'transactions',
    parties: ['from_address', 'to_address', 'created_contract'],
    list: `'transactions'`,
    counter: 'transactions_count',
    keys: accountListKeys('transactions'),
  },
  {
    table: 'token_transfers',
    parties: ['from_address', 'to_address'],
    list: 'token_type',
    counter: 'token_transfers_count',
    keys: accountListKeys('ERC-20'),
  },
];

/**
 * The end of a statement whose CTE `numbered` holds rows of lists (list, address, ordinal, the
 * family's keys, and whether it is its list's last): every `interval`-th row kept as a checkpoint,
 * and each list's last as its tail.
 */
function keepNumbered(keys: readonly string[], interval: string): string {
  const columns = `list, address, ordinal, ${keys.join(', ')}${keys.length === 2 ? ', 0' : ''}`;
  // The rows kept, few, are picked in the one pass over the numbered rows that both inserts read.
  return `, kept AS (SELECT * FROM numbered WHERE ordinal % ${interval} = 0 OR last),
     checkpoints AS (
       INSERT INTO list_checkpoints (list, address, ordinal, block_number, index, batch_index)
       SELECT ${columns} FROM kept WHERE ordinal % ${interval} = 0
       ON CONFLICT DO NOTHING
     )
     INSERT INTO list_tails (list, address, ordinal, block_number, index, batch_index)
     SELECT ${columns} FROM kept WHERE last
     ON CONFLICT (list, address) DO UPDATE SET ordinal = excluded.ordinal, block_number = excluded.block_number,
       index = excluded.index, batch_index = excluded.batch_index`;
}

/**
 * Numbers, in one statement, the rows up to the window's last block of the family's lists that the
 * window's blocks add to, of the addresses busy enough to have checkpoints (their counter at least
 * `interval`): each from its tail, else its last checkpoint (or its first row), keeping a checkpoint at
 * every `interval`-th and the last row as its tail.
 */
async function extendCheckpoints(client: PoolClient, family: ListFamily, window: ListScanWindow, interval: number): Promise<void> {
  const { table, keys } = family;
  const columns = checkpointColumns(keys);
  const params = new SqlParams();
  const [after, to] = [params.add(window.after.toString()), params.add(window.to.toString())];
  const from = (source: string) =>
    `SELECT ${['ordinal', ...columns].join(', ')} FROM ${source} WHERE list = g.list AND address = g.address`;
  const grown = family.parties
    .map(
      (column) =>
        `SELECT ${family.list} AS list, ${column} AS address FROM ${table} WHERE block_number > ${after} AND block_number <= ${to}`,
    )
    .join(' UNION ');
  // Every key of a list is past (-1, -1, -1): the keyset of a list without a checkpoint.
  const last = columns.map((column) => `coalesce(l.${column}, -1)`);
  const sides = withConditions(accountListSides('g.address', table === 'transactions' ? null : 'g.list'), [
    fromKeyset(keys, last, false),
    `s.block_number <= ${to}`,
  ]);
  await client.query(
    `WITH grown AS (
       SELECT p.list, p.address FROM (${grown}) p
       WHERE p.list = ANY(${params.add(table === 'transactions' ? ['transactions'] : listedTokenTypes)}::text[])
         -- Looked up address by address: a join may read every counter.
         AND (SELECT c.${family.counter} FROM address_counters c WHERE c.address = p.address) >= ${params.add(interval)}
     ), numbered AS (
       SELECT g.list, g.address, k.*, coalesce(l.ordinal, 0) + row_number() OVER w - 1 AS ordinal,
              lead(true) OVER w IS NULL AS last
       FROM grown g
       LEFT JOIN LATERAL (
         SELECT * FROM (${from('list_tails')} UNION ALL (${from('list_checkpoints')} ORDER BY ordinal DESC LIMIT 1)) f
         ORDER BY ordinal DESC LIMIT 1
       ) l ON true
       CROSS JOIN LATERAL (${mergedKeys(sides, keys, false, 'ALL')}) k
       WINDOW w AS (PARTITION BY g.list, g.address ORDER BY ${keys.map((key) => `k.${key}`).join(', ')})
     )${keepNumbered(keys, params.add(interval))}`,
    params.values,
  );
}

/**
 * Numbers at once every busy list of the family up to block `to`, as its run of windows would: one read
 * of the table, each row once for each distinct busy address it names, sorted by list and address.
 */
async function numberCheckpoints(client: PoolClient, family: ListFamily, to: bigint, interval: number): Promise<void> {
  const { table, keys } = family;
  const params = new SqlParams();
  const parties = family.parties.map((column) => `s.${column}`).join(', ');
  await client.query(
    `WITH numbered AS (
       SELECT r.*, row_number() OVER w - 1 AS ordinal, lead(true) OVER w IS NULL AS last
       FROM (
         SELECT ${family.list} AS list, p.address, ${keys.map((key) => `s.${key}`).join(', ')}
         FROM ${table} s
         CROSS JOIN LATERAL (SELECT DISTINCT a FROM unnest(ARRAY[${parties}]) u(a) WHERE a IS NOT NULL) p(address)
         WHERE s.block_number <= ${params.add(to.toString())}
           AND ${family.list} = ANY(${params.add(table === 'transactions' ? ['transactions'] : listedTokenTypes)}::text[])
           AND p.address IN (SELECT address FROM address_counters WHERE ${family.counter} >= ${params.add(interval)})
       ) r
       WINDOW w AS (PARTITION BY r.list, r.address ORDER BY ${keys.map((key) => `r.${key}`).join(', ')})
     )${keepNumbered(keys, params.add(interval))}`,
    params.values,
  );
}

/**
 * The bulk load's ledger step: every checkpoint numbered at once over the run of consensus blocks from
 * the lowest without a gap, and the scan moved past that run, so that the stage goes on from there.
 * The stage would number the history window by window, looking up each busy list in each through its
 * indexes; this reads each table once.
 */
export async function buildListCheckpoints(client: PoolClient, interval = LIST_CHECKPOINT_INTERVAL): Promise<void> {
  await client.query('DELETE FROM list_checkpoints');
  await client.query('DELETE FROM list_tails');
  await client.query('DELETE FROM list_scan');
  // A run without a gap numbers its blocks alike, less the run's first: the first run has the lowest.
  const { rows } = await client.query<{ lowest: string | null; last: string | null }>(
    `WITH runs AS (SELECT number, number - row_number() OVER (ORDER BY number) AS run FROM blocks WHERE consensus)
     SELECT min(number)::text AS lowest, max(number)::text AS last FROM runs WHERE run = (SELECT min(run) FROM runs)`,
  );
  const { lowest, last } = rows[0]!;
  if (lowest === null || last === null) return;
  for (const family of families) await numberCheckpoints(client, family, BigInt(last), interval);
  await client.query('INSERT INTO list_scan (one, from_block, block_number) VALUES (true, $1, $2)', [lowest, last]);
}

/**
 * Extends, in one transaction, the checkpoints of every busy list the window's blocks add rows to, and
 * moves the scan past the window. False, and nothing done, when the window's last block lost consensus.
 */
export async function writeListCheckpoints(pool: Pool, window: ListScanWindow, interval = LIST_CHECKPOINT_INTERVAL): Promise<boolean> {
  // Redone after a crash that loses the commit: the scan stays where it was.
  return inRedoableTransaction(pool, async (client) => {
    if (!(await lockConsensusBlock(client, window.toHash))) return false;
    for (const family of families) await extendCheckpoints(client, family, window, interval);
    await client.query('UPDATE list_scan SET block_number = $1', [window.to.toString()]);
    return true;
  });
}

/**
 * Inside a retraction: the checkpoints and tails at and above the lost heights go, and the scan goes
 * back below them.
 */
export async function retractListCheckpoints(client: PoolClient, fromNumber: bigint): Promise<void> {
  await client.query('DELETE FROM list_checkpoints WHERE block_number >= $1', [fromNumber.toString()]);
  await client.query('DELETE FROM list_tails WHERE block_number >= $1', [fromNumber.toString()]);
  await client.query('UPDATE list_scan SET block_number = $1::bigint - 1 WHERE block_number >= $1', [fromNumber.toString()]);
}
