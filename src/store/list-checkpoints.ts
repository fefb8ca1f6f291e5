import type { Pool, PoolClient } from 'pg';
import type { Hex, TokenType } from '../model.js';
import {
  type AccountList,
  accountListKeys,
  accountListSides,
  checkpointColumns,
  fromKeyset,
  mergedKeys,
  withConditions,
} from './account-lists.js';
import { lockConsensusBlock } from './address-marks.js';
import { hexFromBytea } from './encode.js';
import { inLockOrder } from './lock-order.js';
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

/** Drops every checkpoint, and has the scan begin again at `lowest`. */
async function beginScan(pool: Pool, lowest: bigint): Promise<bigint> {
  await inTransaction(pool, async (client) => {
    await client.query('DELETE FROM list_checkpoints');
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

/**
 * The lists the window's blocks add rows to, of the addresses busy enough to have checkpoints (their
 * counters, which count every list's rows, at least `interval`).
 */
async function listsGrown(client: PoolClient, window: ListScanWindow, interval: number): Promise<{ list: AccountList; address: Buffer }[]> {
  const { rows } = await client.query<{ list: AccountList; address: Buffer }>(
    `SELECT 'transactions' AS list, p.address FROM (
       SELECT from_address FROM transactions WHERE block_number > $1 AND block_number <= $2
       UNION SELECT to_address FROM transactions WHERE block_number > $1 AND block_number <= $2
       UNION SELECT created_contract FROM transactions WHERE block_number > $1 AND block_number <= $2
     ) p(address)
     JOIN address_counters c ON c.address = p.address WHERE c.transactions_count >= $3
     UNION ALL
     SELECT p.token_type, p.address FROM (
       SELECT token_type, from_address FROM token_transfers WHERE block_number > $1 AND block_number <= $2
       UNION SELECT token_type, to_address FROM token_transfers WHERE block_number > $1 AND block_number <= $2
     ) p(token_type, address)
     JOIN address_counters c ON c.address = p.address WHERE c.token_transfers_count >= $3 AND p.token_type = ANY($4::text[])`,
    [window.after.toString(), window.to.toString(), interval, listedTokenTypes],
  );
  return rows.sort((a, b) => inLockOrder(a.list, b.list) || a.address.compare(b.address));
}

/**
 * Numbers the list's rows up to the window's last block from its last checkpoint (or its first row),
 * and keeps a checkpoint at every `interval`-th.
 */
async function extendCheckpoints(client: PoolClient, list: AccountList, address: Buffer, to: bigint, interval: number): Promise<void> {
  const keys = accountListKeys(list);
  const columns = checkpointColumns(keys);
  const last = await client.query<Record<string, string>>(
    `SELECT ordinal, ${columns.join(', ')} FROM list_checkpoints WHERE list = $1 AND address = $2 ORDER BY ordinal DESC LIMIT 1`,
    [list, address],
  );
  const params = new SqlParams();
  const [listParam, addressParam] = [params.add(list), params.add(address)];
  const sides = accountListSides(list, addressParam, list === 'transactions' ? null : params.add(list satisfies TokenType));
  const bound = `s.block_number <= ${params.add(to.toString())}::bigint`;
  const checkpoint = last.rows[0];
  const from =
    checkpoint === undefined
      ? []
      : [
          fromKeyset(
            keys,
            columns.map((column) => params.add(checkpoint[column])),
            false,
          ),
        ];
  const walked = withConditions(sides, [...from, bound]);
  await client.query(
    `INSERT INTO list_checkpoints (list, address, ordinal, ${['block_number', 'index', 'batch_index'].join(', ')})
     SELECT ${listParam}, ${addressParam}, n.ordinal, ${keys.map((key) => `n.${key}`).join(', ')}${keys.length === 2 ? ', 0' : ''}
     FROM (SELECT k.*, ${params.add(checkpoint?.ordinal ?? '0')}::bigint + row_number() OVER (ORDER BY ${keys.join(', ')}) - 1 AS ordinal
           FROM (${mergedKeys(walked, keys, false, 'ALL')}) k) n
     WHERE n.ordinal % ${params.add(interval)} = 0
     ON CONFLICT DO NOTHING`,
    params.values,
  );
}

/**
 * Extends, in one transaction, the checkpoints of every busy list the window's blocks add rows to, and
 * moves the scan past the window. False, and nothing done, when the window's last block lost consensus.
 */
export async function writeListCheckpoints(pool: Pool, window: ListScanWindow, interval = LIST_CHECKPOINT_INTERVAL): Promise<boolean> {
  // Redone after a crash that loses the commit: the scan stays where it was.
  return inRedoableTransaction(pool, async (client) => {
    if (!(await lockConsensusBlock(client, window.toHash))) return false;
    for (const { list, address } of await listsGrown(client, window, interval)) {
      await extendCheckpoints(client, list, address, window.to, interval);
    }
    await client.query('UPDATE list_scan SET block_number = $1', [window.to.toString()]);
    return true;
  });
}

/** Inside a retraction: the checkpoints at and above the lost heights go, and the scan goes back below them. */
export async function retractListCheckpoints(client: PoolClient, fromNumber: bigint): Promise<void> {
  await client.query('DELETE FROM list_checkpoints WHERE block_number >= $1', [fromNumber.toString()]);
  await client.query('UPDATE list_scan SET block_number = $1::bigint - 1 WHERE block_number >= $1', [fromNumber.toString()]);
}
