import type { Hex } from '../../model.js';
import { byteaFromHex } from '../encode.js';
import type { Db } from './sql.js';

const indexedHead = 'SELECT max(number) FROM blocks WHERE consensus';

/** Whether consensus block `number` lies at least `depth` blocks below the indexed head, where no followed reorg reaches. */
export async function isBlockNumberFinal(db: Db, number: number, depth: number): Promise<boolean> {
  const { rows } = await db.query<{ final: boolean | null }>(`SELECT $1::bigint <= (${indexedHead}) - $2::bigint AS final`, [
    number,
    depth,
  ]);
  return rows[0]?.final === true;
}

/** Whether the transaction is mined in a block at least `depth` blocks below the indexed head. */
export async function isTransactionFinal(db: Db, transactionHash: Hex, depth: number): Promise<boolean> {
  const { rows } = await db.query<{ final: boolean | null }>(
    `SELECT t.block_number <= (${indexedHead}) - $2::bigint AS final FROM transactions t WHERE t.hash = $1`,
    [byteaFromHex(transactionHash), depth],
  );
  return rows[0]?.final === true;
}
