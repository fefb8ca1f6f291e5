import assert from 'node:assert/strict';
import type { Pool } from 'pg';

/**
 * Columns that hold the wall-clock time something was done, or a mark drawn from a sequence in the
 * order work happened to run, which two runs over the same chain never share. Each is compared only
 * as set or not (a `<column> IS NOT NULL` member), which still tells a traced block from an untraced one.
 */
const RUN_DEPENDENT_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  // When each migration ran.
  schema_migrations: ['applied_at'],
  // When the trace stage wrote the block's traces.
  blocks: ['traced_at'],
  // When the token's contract was read, and the request to read its total supply again.
  tokens: ['metadata_fetched_at', 'supply_mark'],
  // When the NFT's metadata was fetched, and the request the fetch answered.
  token_instances: ['metadata_fetched_at', 'metadata_mark'],
  // When the node's pool was seen to hold the transaction.
  pending_transactions: ['inserted_at'],
  // The indexed head the contract code stage read the code at.
  contract_codes: ['block_number'],
  // The request to check a contract for a proxy, and the indexed head the check read.
  proxy_marks: ['mark'],
  proxy_implementations: ['block_number'],
  // The height of the address's latest coin balance read (its value two runs share: see below).
  address_current_coin_balances: ['block_number'],
};

/**
 * Tables of the native coin balances: a row per read, taken from the node's state at the head indexed
 * when the read ran, and the queue of reads still to make. Two runs over the same chain read at
 * different heads, so these rows are left out of the comparison. What two runs share once every
 * marked balance is read is each address's latest balance: every block or trace that moves a balance
 * marks the address again, so its latest read is its balance at the last indexed block, whatever
 * height the read ran at. The snapshot holds that instead, under LATEST_COIN_BALANCES.
 */
const READ_TIME_TABLES: ReadonlySet<string> = new Set(['address_coin_balances', 'coin_balance_marks']);
export const LATEST_COIN_BALANCES = 'address_coin_balances, latest value per address';

/**
 * Tables of the data Sextant ships rather than indexes (the signature database): loaded beside the
 * indexing, whole or not at all, the same in every database once loaded. Left out of the comparison.
 */
const SHIPPED_TABLES: ReadonlySet<string> = new Set(['signatures', 'signature_sources']);

/** Every row of every table, as text, in a stable order, by table name. */
export type DatabaseSnapshot = Record<string, { columns: string[]; rows: string[][] }>;

/**
 * A canonical dump of every table of the public schema: all rows, each column as PostgreSQL's text
 * form (bytea in hex), ordered by every column, those columns reduced to whether they are set; of the
 * coin balance tables, each address's latest balance; the shipped signature database left out.
 */
export async function snapshotDatabase(pool: Pool): Promise<DatabaseSnapshot> {
  const { rows: columns } = await pool.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const tables = new Map<string, { names: string[]; expressions: string[] }>();
  for (const { table_name: table, column_name: column } of columns) {
    if (READ_TIME_TABLES.has(table) || SHIPPED_TABLES.has(table)) continue;
    const runDependent = RUN_DEPENDENT_COLUMNS[table]?.includes(column) ?? false;
    const entry = tables.get(table) ?? { names: [], expressions: [] };
    entry.names.push(runDependent ? `${column} IS NOT NULL` : column);
    entry.expressions.push(runDependent ? `(${quote(column)} IS NOT NULL)::text` : `${quote(column)}::text`);
    tables.set(table, entry);
  }
  const snapshot: DatabaseSnapshot = {};
  for (const [table, { names, expressions }] of tables) {
    const order = expressions.map((_, i) => String(i + 1)).join(', ');
    const { rows } = await pool.query<string[]>({
      text: `SELECT ${expressions.join(', ')} FROM ${quote(table)} ORDER BY ${order}`,
      rowMode: 'array',
    });
    snapshot[table] = { columns: names, rows };
  }
  const latest = await pool.query<string[]>({
    text: `SELECT DISTINCT ON (address) address::text, value::text FROM address_coin_balances ORDER BY address, block_number DESC`,
    rowMode: 'array',
  });
  snapshot[LATEST_COIN_BALANCES] = { columns: ['address', 'value'], rows: latest.rows };
  return snapshot;
}

/** Asserts two snapshots are equal; the message names the first table that differs and its first differing rows. */
export function assertSameSnapshot(actual: DatabaseSnapshot, expected: DatabaseSnapshot, context = ''): void {
  const prefix = context === '' ? '' : `${context}: `;
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${prefix}the databases have different tables`);
  for (const table of Object.keys(expected).sort()) {
    const got = actual[table]!;
    const want = expected[table]!;
    if (JSON.stringify(got) === JSON.stringify(want)) continue;
    const first = firstDifference(got.rows, want.rows);
    assert.fail(
      `${prefix}table ${table} differs (${got.rows.length} rows, expected ${want.rows.length}); first difference at row ${first}:\n` +
        `  columns:  ${JSON.stringify(want.columns)}\n` +
        `  got:      ${JSON.stringify(got.rows[first] ?? null)}\n` +
        `  expected: ${JSON.stringify(want.rows[first] ?? null)}`,
    );
  }
}

function firstDifference(got: readonly string[][], want: readonly string[][]): number {
  const length = Math.max(got.length, want.length);
  for (let i = 0; i < length; i++) if (JSON.stringify(got[i]) !== JSON.stringify(want[i])) return i;
  return length;
}

const quote = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

/**
 * What the stages of Sextant have still to do in the database indexed up to `lastBlock`: blocks to
 * index or trace, tokens to read, total supplies to read again, NFT metadata to fetch, coin balances
 * to read, contracts to check for a proxy, blocks to scan for the account lists' checkpoints (above
 * the scan, and below where it began: blocks indexed after it began, when batches commit out of
 * order, have the stage begin again from them). Empty once indexing has settled.
 */
export async function unfinishedWork(pool: Pool, lastBlock: bigint): Promise<string[]> {
  const { rows } = await pool.query<{ what: string; count: number }>(
    `SELECT 'blocks to index' AS what, $1::int - count(*)::int AS count FROM blocks WHERE consensus
     UNION ALL SELECT 'blocks to trace', count(*)::int FROM blocks WHERE consensus AND traced_at IS NULL
     UNION ALL SELECT 'tokens to read', count(*)::int FROM tokens WHERE metadata_fetched_at IS NULL
     UNION ALL SELECT 'total supplies to read again', count(*)::int FROM tokens WHERE supply_mark IS NOT NULL
     UNION ALL SELECT 'NFT metadata to fetch', count(*)::int FROM token_instances WHERE metadata_fetched_at IS NULL
     UNION ALL SELECT 'coin balances to read', count(*)::int FROM coin_balance_marks
     UNION ALL SELECT 'contract code to read', count(*)::int FROM contract_code_marks
     UNION ALL SELECT 'contracts to check for a proxy', count(*)::int FROM proxy_marks
     UNION ALL SELECT 'blocks to scan for the account lists'' checkpoints', count(*)::int FROM blocks
       WHERE consensus AND (number > coalesce((SELECT block_number FROM list_scan), -1)
                            OR number < coalesce((SELECT from_block FROM list_scan), 0))`,
    [Number(lastBlock) + 1],
  );
  return rows.filter((row) => row.count !== 0).map((row) => `${row.count} ${row.what}`);
}

/** The definition of every index of the schema, in the order of their names. */
export async function indexDefinitions(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`);
  return rows.map((r) => r.indexdef);
}
