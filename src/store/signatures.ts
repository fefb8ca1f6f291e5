import type { Pool } from 'pg';
import type { KnownSignature } from '../model.js';
import { copyRows, csvLine } from './copy.js';
import { inTransaction } from './transaction.js';

/** Taken by the process that loads the signatures: the others, started at the same time, leave it to it. (7411 is the migrator's, 7412 the pool snapshot's.) */
const SIGNATURE_LOAD_LOCK = 7413;

/** Whether the signatures table holds this source's signatures. */
export async function signatureSourceLoaded(pool: Pool, source: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM signature_sources WHERE source = $1', [source]);
  return rowCount !== 0;
}

/**
 * Replaces whatever the signatures table holds with these signatures of `source`, in one transaction.
 * False, with nothing done, when another process is loading signatures now or this source is there already.
 */
export function replaceSignatures(pool: Pool, source: string, signatures: readonly KnownSignature[]): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [SIGNATURE_LOAD_LOCK]);
    if (!rows[0]!.locked) return false;
    const { rowCount } = await client.query('SELECT 1 FROM signature_sources WHERE source = $1', [source]);
    if (rowCount !== 0) return false;
    await client.query('TRUNCATE signatures, signature_sources');
    // The same signature twice under one selector would break the key: the first is kept.
    await client.query('CREATE TEMPORARY TABLE signatures_load (LIKE signatures) ON COMMIT DROP');
    const lines = signatures.map((s) => csvLine([s.type, `\\x${s.selector.slice(2)}`, s.signature, s.name]));
    await copyRows(client, 'signatures_load', ['type', 'selector', 'signature', 'name'], lines);
    const inserted = await client.query('INSERT INTO signatures SELECT * FROM signatures_load ON CONFLICT DO NOTHING');
    await client.query('INSERT INTO signature_sources (source, signatures) VALUES ($1, $2)', [source, inserted.rowCount]);
    return true;
  });
}
