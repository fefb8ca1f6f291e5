import type { Pool, PoolClient } from 'pg';
import type { Address, Hex, PrimaryNameRecord } from '../model.js';
import { byteaFromHex, hexFromBytea, nullableByteaFromHex } from './encode.js';
import { inLockOrder } from './lock-order.js';
import { type AddressMark, clearAddressMarks, findAddressMarks, lockConsensusBlock, writeAtConsensusBlock } from './address-marks.js';
import { inTransaction } from './transaction.js';

/** A run of consensus blocks, without a gap, after the ENS stage's scan. */
export interface EnsScanWindow {
  /** The last block scanned before (exclusive). */
  after: bigint;
  /** The last block of the run, and its hash (the run is dropped if it loses consensus meanwhile). */
  to: bigint;
  toHash: Hex;
}

/**
 * The next run of at most `maxBlocks` consensus blocks after the scan (after `firstBlock - 1` before
 * any), stopping at the first block not indexed yet, or, `tracedOnly`, not traced yet; null when there
 * is none.
 */
export async function findEnsScanWindow(
  pool: Pool,
  firstBlock: bigint,
  maxBlocks: number,
  tracedOnly: boolean,
): Promise<EnsScanWindow | null> {
  const scanned = await pool.query<{ block_number: string }>('SELECT block_number FROM ens_scan');
  const after = scanned.rows[0] === undefined ? firstBlock - 1n : BigInt(scanned.rows[0].block_number);
  const { rows } = await pool.query<{ number: string; hash: Buffer; traced: boolean }>(
    'SELECT number, hash, traced_at IS NOT NULL AS traced FROM blocks WHERE consensus AND number > $1 ORDER BY number LIMIT $2',
    [after.toString(), maxBlocks],
  );
  let last: { number: string; hash: Buffer } | undefined;
  for (const [i, row] of rows.entries()) {
    if (BigInt(row.number) !== after + 1n + BigInt(i) || (tracedOnly && !row.traced)) break;
    last = row;
  }
  return last === undefined ? null : { after, to: BigInt(last.number), toHash: hexFromBytea(last.hash) };
}

/** A log as the ENS stage reads it. */
export interface EnsLog {
  topics: Hex[];
  data: Hex;
}

/** The logs of the window's blocks whose first topic is one of `topics`. */
export async function findEnsLogs(pool: Pool, window: EnsScanWindow, topics: readonly Hex[]): Promise<EnsLog[]> {
  const { rows } = await pool.query<{ topics: (Buffer | null)[]; data: Buffer }>(
    `SELECT ARRAY[l.first_topic, l.second_topic, l.third_topic, l.fourth_topic] AS topics, l.data
     FROM blocks b JOIN logs l ON l.block_hash = b.hash
     WHERE b.consensus AND b.number > $1 AND b.number <= $2 AND l.first_topic = ANY($3::bytea[])`,
    [window.after.toString(), window.to.toString(), topics.map(byteaFromHex)],
  );
  return rows.map((r) => ({ topics: r.topics.flatMap((t) => (t === null ? [] : [hexFromBytea(t)])), data: hexFromBytea(r.data) }));
}

/** Whom the ENS events of a window concern: addresses named, and nodes (reverse nodes or names' nodes) changed. */
export interface EnsParties {
  addresses: Address[];
  nodes: Hex[];
}

const markNew = `INSERT INTO ens_marks (address, mark)
  SELECT a, nextval('ens_mark_numbers') FROM (SELECT DISTINCT a FROM marked ORDER BY a) m(a)
  ON CONFLICT (address) DO UPDATE SET mark = excluded.mark`;

/**
 * Marks for a check, in one transaction, the addresses the window's blocks show never checked (the
 * transactions' and internal transactions' senders, recipients and created contracts, the miners, the
 * token transfers' senders and recipients), and those the window's ENS events concern (the addresses they name, the addresses
 * whose reverse node or claimed name's node they change); then moves the scan past the window. False,
 * and nothing done, when the window's last block lost consensus.
 */
export async function markEnsWindow(pool: Pool, window: EnsScanWindow, parties: EnsParties): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    if (!(await lockConsensusBlock(client, window.toHash))) return false;
    await client.query(
      `WITH window_blocks AS (
         SELECT hash, miner FROM blocks WHERE consensus AND number > $1 AND number <= $2
       ), seen AS (
         SELECT from_address AS a FROM transactions WHERE block_number > $1 AND block_number <= $2
         UNION SELECT to_address FROM transactions WHERE block_number > $1 AND block_number <= $2
         UNION SELECT created_contract FROM transactions WHERE block_number > $1 AND block_number <= $2
         UNION SELECT miner FROM window_blocks
         UNION SELECT t.from_address FROM window_blocks b JOIN token_transfers t ON t.block_hash = b.hash
         UNION SELECT t.to_address FROM window_blocks b JOIN token_transfers t ON t.block_hash = b.hash
         UNION SELECT i.from_address FROM window_blocks b JOIN internal_transactions i ON i.block_hash = b.hash
         UNION SELECT i.to_address FROM window_blocks b JOIN internal_transactions i ON i.block_hash = b.hash
         UNION SELECT i.created_contract FROM window_blocks b JOIN internal_transactions i ON i.block_hash = b.hash
       ), marked AS (
         SELECT a FROM seen s WHERE a IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM ens_names n WHERE n.address = s.a)
           AND NOT EXISTS (SELECT 1 FROM ens_marks m WHERE m.address = s.a)
       )
       INSERT INTO ens_marks (address, mark)
       SELECT a, nextval('ens_mark_numbers') FROM (SELECT a FROM marked ORDER BY a) m(a)
       ON CONFLICT (address) DO NOTHING`,
      [window.after.toString(), window.to.toString()],
    );
    if (parties.addresses.length > 0 || parties.nodes.length > 0) {
      const nodes = parties.nodes.map(byteaFromHex);
      await client.query(
        `WITH marked AS (
           SELECT unnest($1::bytea[]) AS a
           UNION SELECT address FROM ens_names WHERE reverse_node = ANY($2::bytea[])
           UNION SELECT address FROM ens_names WHERE claimed_node = ANY($2::bytea[])
         ) ${markNew}`,
        [[...new Set(parties.addresses.map((a) => a.toLowerCase() as Address))].sort(inLockOrder).map(byteaFromHex), nodes],
      );
    }
    await client.query(
      `INSERT INTO ens_scan (one, block_number) VALUES (true, $1)
       ON CONFLICT (one) DO UPDATE SET block_number = excluded.block_number`,
      [window.to.toString()],
    );
    return true;
  });
}

/**
 * Marks again, oldest check first, up to `limit` of the addresses whose reverse record claimed a name
 * checked longer than `ageMs` ago: a name can expire or move without an event the scan sees. The
 * number marked.
 */
export async function markEnsRechecks(pool: Pool, ageMs: number, limit: number): Promise<number> {
  const { rowCount } = await pool.query(
    `WITH marked AS (
       SELECT address AS a FROM ens_names
       WHERE claimed IS NOT NULL AND checked_at < now() - $1 * interval '1 millisecond'
         AND NOT EXISTS (SELECT 1 FROM ens_marks m WHERE m.address = ens_names.address)
       ORDER BY checked_at LIMIT $2
     ) ${markNew}`,
    [ageMs, limit],
  );
  return rowCount ?? 0;
}

/** Addresses to check, in address order. */
export const findEnsMarks = (pool: Pool, limit: number): Promise<AddressMark[]> => findAddressMarks(pool, 'ens_marks', limit);

/**
 * Stores the names read at `head` and clears the marks checked under, unless a window marked the
 * address again meanwhile. Nothing is stored when `head` lost consensus meanwhile: the block row is
 * locked first, so that a retraction comes either before (the checks are dropped, the marks kept) or
 * after (and marks these addresses again).
 */
export async function saveEnsNames(
  pool: Pool,
  head: { number: bigint; hash: Hex },
  checked: readonly (AddressMark & { record: PrimaryNameRecord })[],
): Promise<boolean> {
  return writeAtConsensusBlock(pool, head.hash, checked, async (client, entries) => {
    const addresses = entries.map((e) => byteaFromHex(e.address));
    await client.query(
      `INSERT INTO ens_names (address, reverse_node, claimed, claimed_node, name, block_number, checked_at)
       SELECT a, r, c, cn, n, $6, now() FROM unnest($1::bytea[], $2::bytea[], $3::text[], $4::bytea[], $5::text[]) u(a, r, c, cn, n)
       ON CONFLICT (address) DO UPDATE SET reverse_node = excluded.reverse_node, claimed = excluded.claimed,
         claimed_node = excluded.claimed_node, name = excluded.name, block_number = excluded.block_number, checked_at = excluded.checked_at`,
      [
        addresses,
        entries.map((e) => byteaFromHex(e.record.reverseNode)),
        entries.map((e) => e.record.claimed),
        entries.map((e) => nullableByteaFromHex(e.record.claimedNode)),
        entries.map((e) => e.record.name),
        head.number.toString(),
      ],
    );
    await clearAddressMarks(client, 'ens_marks', entries);
  });
}

/**
 * Inside a retraction: the scan goes back to below the lost heights, and every name read at one of
 * them is checked again.
 */
export async function retractEnsNames(client: PoolClient, fromNumber: bigint): Promise<void> {
  await client.query('UPDATE ens_scan SET block_number = $1 WHERE block_number >= $1', [(fromNumber - 1n).toString()]);
  await client.query(`WITH marked AS (SELECT address AS a FROM ens_names WHERE block_number >= $1) ${markNew}`, [fromNumber.toString()]);
}
