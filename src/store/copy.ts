import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A CSV cell: null is SQL NULL; strings are quoted when needed. */
export type Cell = string | null;

function csvCell(value: Cell): string {
  if (value === null) return '';
  if (value === '' || /[",\r\n]/.test(value)) return `"${value.replaceAll('"', '""')}"`;
  return value;
}

/** Rows for one table, with the columns they fill. */
export interface RowSet {
  table: string;
  columns: readonly string[];
  rows: Cell[][];
}

/**
 * Rows are sent in pieces of about this many characters: one CopyData message per row would cost
 * a stream write and a socket write each, which dominates the COPY of small rows.
 */
const CHUNK_CHARS = 256 * 1024;

/** Bulk-loads rows into a table with COPY … FROM STDIN (CSV), inside the client's current transaction. */
export async function copyRows(client: PoolClient, table: string, columns: readonly string[], rows: readonly Cell[][]): Promise<void> {
  if (rows.length === 0) return;
  const sql = `COPY ${table} (${columns.join(', ')}) FROM STDIN WITH (FORMAT csv)`;
  const stream = client.query(copyFrom(sql));
  const finished = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  let chunk = '';
  for (const row of rows) {
    chunk += `${row.map(csvCell).join(',')}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      stream.write(chunk);
      chunk = '';
    }
  }
  stream.end(chunk);
  await finished;
}
