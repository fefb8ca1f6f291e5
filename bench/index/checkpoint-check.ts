import type pg from 'pg';
import { LIST_CHECKPOINT_INTERVAL } from '../../src/store/list-checkpoints.js';

/** The count and an md5 digest of the account lists' checkpoints. */
export async function checkpointDigest(client: pg.ClientBase | pg.Pool): Promise<{ n: number; digest: string }> {
  const { rows } = await client.query<{ n: number; digest: string | null }>(
    `SELECT count(*)::int AS n, md5(string_agg(concat_ws(':', list, encode(address, 'hex'), ordinal, block_number, index, batch_index), ','
       ORDER BY list, address, ordinal)) AS digest FROM list_checkpoints`,
  );
  return { n: rows[0]!.n, digest: rows[0]!.digest ?? 'none' };
}

/**
 * Every INTERVAL-th row, from the first, of every list of the addresses busy enough (their counter), up
 * to the scan: the lists read row by row, each side a UNION member (which keeps a row two sides hold
 * once), apart from how the stage and the ledger number them.
 */
const numberedRowByRow = `
  SELECT list, address, ordinal, block_number, index, batch_index FROM (
    SELECT *, row_number() OVER (PARTITION BY list, address ORDER BY block_number, index, batch_index) - 1 AS ordinal FROM (
      SELECT 'transactions' AS list, address, block_number, index, 0 AS batch_index FROM (
        SELECT from_address AS address, block_number, index FROM transactions
        UNION SELECT to_address, block_number, index FROM transactions
        UNION SELECT created_contract, block_number, index FROM transactions
      ) t WHERE address IN (SELECT address FROM address_counters WHERE transactions_count >= $1)
      UNION ALL
      SELECT token_type, address, block_number, log_index, batch_index FROM (
        SELECT token_type, from_address AS address, block_number, log_index, batch_index FROM token_transfers
        UNION SELECT token_type, to_address, block_number, log_index, batch_index FROM token_transfers
      ) t WHERE token_type IN ('ERC-20', 'ERC-721', 'ERC-1155')
        AND address IN (SELECT address FROM address_counters WHERE token_transfers_count >= $1)
    ) r WHERE block_number <= (SELECT block_number FROM list_scan)
  ) n WHERE ordinal % $1 = 0`;

/**
 * The checkpoints of a database against the lists numbered row by row: how many lists have them, how
 * many busy lists have none (the stage numbers a list of a busy address once it scans a row of it),
 * and how many checkpoints of the lists that have them are wrong or missing.
 */
export async function checkCheckpoints(client: pg.ClientBase | pg.Pool): Promise<{ lists: number; unnumbered: number; wrong: number }> {
  const { rows } = await client.query<{ lists: number; unnumbered: number; wrong: number }>(
    `WITH expected AS (${numberedRowByRow}),
          numbered AS (SELECT DISTINCT list, address FROM list_checkpoints),
          listed AS (SELECT e.* FROM expected e JOIN numbered USING (list, address)),
          kept AS (SELECT list, address, ordinal, block_number, index, batch_index FROM list_checkpoints)
     SELECT (SELECT count(*) FROM numbered)::int AS lists,
            (SELECT count(*) FROM (SELECT DISTINCT list, address FROM expected EXCEPT SELECT * FROM numbered) u)::int AS unnumbered,
            (SELECT count(*) FROM ((SELECT * FROM kept EXCEPT SELECT * FROM listed) UNION ALL (SELECT * FROM listed EXCEPT SELECT * FROM kept)) d)::int AS wrong`,
    [LIST_CHECKPOINT_INTERVAL],
  );
  return rows[0]!;
}

/** How far the account lists' checkpoints of a database are numbered (list_scan's last block), or null. */
export async function checkpointsScanned(client: pg.ClientBase | pg.Pool): Promise<bigint | null> {
  const { rows } = await client.query<{ block_number: string }>('SELECT block_number FROM list_scan');
  return rows[0] === undefined ? null : BigInt(rows[0].block_number);
}
