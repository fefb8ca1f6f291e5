import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A CSV cell: null is SQL NULL; strings are quoted when needed. */
export type Cell = string | null;

/**
 * A free-text field of COPY CSV input: an unquoted empty field is NULL, so the empty string is quoted,
 * and so is text with a quote, a comma or a line break. Hex, numbers and timestamps never need this.
 */
export function csvText(value: Cell): string {
  if (value === null) return '';
  if (value === '' || /[",\r\n]/.test(value)) return `"${value.replaceAll('"', '""')}"`;
  return value;
}

/** One row of COPY CSV input from its cells, newline included. */
export const csvLine = (cells: readonly Cell[]): string => `${cells.map(csvText).join(',')}\n`;

/** Rows for one table as COPY CSV lines (each with its newline), with the columns they fill. */
export interface RowSet {
  table: string;
  columns: readonly string[];
  rows: readonly string[];
}

/**
 * Rows are sent in pieces of about this many characters: one CopyData message per row would cost
 * a stream write and a socket write each, which dominates the COPY of small rows.
 */
const CHUNK_CHARS = 256 * 1024;

/** Bulk-loads CSV lines into a table with COPY … FROM STDIN (CSV), inside the client's current transaction. */
export async function copyRows(client: PoolClient, table: string, columns: readonly string[], lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  const sql = `COPY ${table} (${columns.join(', ')}) FROM STDIN WITH (FORMAT csv)`;
  const stream = client.query(copyFrom(sql));
  const finished = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= CHUNK_CHARS) {
      stream.write(chunk);
      chunk = '';
    }
  }
  stream.end(chunk);
  await finished;
}
