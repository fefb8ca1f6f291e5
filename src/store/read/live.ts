import type { Address, Hex } from '../../model.js';
import { byteaFromHex, hexFromBytea } from '../encode.js';
import type { BlockRange } from './blocks.js';
import type { Db } from './sql.js';

/** How many transfers of each of `tokens` the blocks numbered from..to hold (a token with none is left out). */
export async function countTokenTransfersBetween(db: Db, range: BlockRange, tokens: readonly Address[]): Promise<Map<Address, number>> {
  if (tokens.length === 0) return new Map();
  const { rows } = await db.query<{ token_address: Buffer; count: string }>(
    `SELECT token_address, count(*) AS count FROM token_transfers
     WHERE token_address = ANY($1::bytea[]) AND block_number BETWEEN $2::bigint AND $3::bigint
     GROUP BY token_address`,
    [tokens.map(byteaFromHex), range.from, range.to],
  );
  return new Map(rows.map((r) => [hexFromBytea(r.token_address) as Address, Number(r.count)]));
}

/** Which of `hashes` are transactions of the blocks numbered from..to. */
export async function findTransactionsBetween(db: Db, range: BlockRange, hashes: readonly Hex[]): Promise<Hex[]> {
  if (hashes.length === 0) return [];
  const { rows } = await db.query<{ hash: Buffer }>(
    'SELECT hash FROM transactions WHERE hash = ANY($1::bytea[]) AND block_number BETWEEN $2::bigint AND $3::bigint',
    [hashes.map(byteaFromHex), range.from, range.to],
  );
  return rows.map((r) => hexFromBytea(r.hash));
}
