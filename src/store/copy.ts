import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A CSV cell: null is SQL NULL; strings are quoted when needed. */
export type Cell = string | null;

function csvCell(value: Cell): string {
  if (value === null) return '';
  if (value === '' || /[",\r\n]/.test(value)) return `"${value.replaceAll('"', '""')}"`;
  return value;
}

/** Bulk-loads rows into a table with COPY … FROM STDIN (CSV), inside the client's current transaction. */
export async function copyRows(client: PoolClient, table: string, columns: readonly string[], rows: Cell[][]): Promise<void> {
  if (rows.length === 0) return;
  const sql = `COPY ${table} (${columns.join(', ')}) FROM STDIN WITH (FORMAT csv)`;
  const lines = (function* () {
    for (const row of rows) yield row.map(csvCell).join(',') + '\n';
  })();
  await pipeline(Readable.from(lines), client.query(copyFrom(sql)));
}
