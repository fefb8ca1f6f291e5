import type { Address, Hex } from '../../model.js';
import { byteaFromHex, hexFromBytea } from '../encode.js';
import { type Db, SqlParams, isoTimestamp } from './sql.js';
import { type TokenItem, type TokenRow, toTokenItem, tokenColumns } from './tokens.js';

/** A transaction search finds by its hash: mined (with its block's time) or pending (no time). */
export interface SearchTransactionItem {
  hash: Hex;
  /** ISO 8601; null while pending. */
  timestamp: string | null;
}

/** A block search finds by its number or hash: the consensus block, or one that lost consensus. */
export interface SearchBlockItem {
  hash: Hex;
  number: number;
  /** ISO 8601. */
  timestamp: string;
  consensus: boolean;
}

/** Where a page of token matches continues: after this token, in the order searchTokens lists them. */
export interface TokenSearchKeyset {
  holdersCount: bigint;
  name: string | null;
  address: Address;
}

/**
 * The words of a token a search matches, as migration 019's index holds them: its symbol's and its
 * name's, lowercased, unstemmed.
 */
export const tokenSearchWords = (alias: string): string =>
  `to_tsvector('simple', coalesce(${alias}.symbol, '') || ' ' || coalesce(${alias}.name, ''))`;

interface SearchTransactionRow {
  hash: Buffer;
  timestamp: string | null;
}

export async function findTransactionsByHash(db: Db, hash: Hex): Promise<SearchTransactionItem[]> {
  const { rows } = await db.query<SearchTransactionRow>(
    `SELECT hash, ${isoTimestamp('block_timestamp')} AS timestamp FROM transactions WHERE hash = $1
     UNION ALL
     SELECT hash, NULL FROM pending_transactions WHERE hash = $1`,
    [byteaFromHex(hash)],
  );
  return rows.map((r) => ({ hash: hexFromBytea(r.hash), timestamp: r.timestamp }));
}

interface SearchBlockRow {
  hash: Buffer;
  number: string;
  timestamp: string;
  consensus: boolean;
}

const blockColumns = `hash, number, ${isoTimestamp('timestamp')} AS timestamp, consensus`;

const toSearchBlockItem = (r: SearchBlockRow): SearchBlockItem => ({
  hash: hexFromBytea(r.hash),
  number: Number(r.number),
  timestamp: r.timestamp,
  consensus: r.consensus,
});

export async function findBlocksByHash(db: Db, hash: Hex): Promise<SearchBlockItem[]> {
  const { rows } = await db.query<SearchBlockRow>(`SELECT ${blockColumns} FROM blocks WHERE hash = $1`, [byteaFromHex(hash)]);
  return rows.map(toSearchBlockItem);
}

/**
 * The consensus block of a height, if indexed. The blocks that lost consensus there are left out (unlike
 * Blockscout's search): they are listed by GET /api/v2/blocks?type=reorg, and found by their hash.
 */
export async function findBlockByNumber(db: Db, number: bigint): Promise<SearchBlockItem | null> {
  const { rows } = await db.query<SearchBlockRow>(`SELECT ${blockColumns} FROM blocks WHERE number = $1 AND consensus`, [
    number.toString(),
  ]);
  return rows[0] === undefined ? null : toSearchBlockItem(rows[0]);
}

/**
 * Whether the indexed chain mentions the address: it sent, received or created a transaction, sent or
 * received a token transfer or mined a block (its counters, above zero: a retraction may leave a row at
 * zero), is a contract or a token, or received a withdrawal. What the node's state says of it (its coin
 * balance) is left out, so that two indexes of one chain agree.
 */
export async function isKnownAddress(db: Db, address: Address): Promise<boolean> {
  const { rows } = await db.query<{ known: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM address_counters
                    WHERE address = $1 AND (transactions_count > 0 OR token_transfers_count > 0 OR validations_count > 0))
         OR EXISTS (SELECT 1 FROM addresses WHERE hash = $1)
         OR EXISTS (SELECT 1 FROM tokens WHERE address = $1)
         OR EXISTS (SELECT 1 FROM withdrawals WHERE address = $1) AS known`,
    [byteaFromHex(address)],
  );
  return rows[0]?.known === true;
}

/** The address whose primary ENS name (checked forward) is `name`, if one is; the one checked last if several claim it. */
export async function findAddressByEnsName(db: Db, name: string): Promise<Address | null> {
  const { rows } = await db.query<{ address: Buffer }>(
    'SELECT address FROM ens_names WHERE name = $1 ORDER BY checked_at DESC, address LIMIT 1',
    [name],
  );
  return rows[0] === undefined ? null : hexFromBytea(rows[0].address);
}

const searchOrder = 'k.holders_count DESC, k.name ASC NULLS LAST, k.address ASC';

/**
 * The tokens whose symbol and name hold every word of the query as a prefix of one of theirs, ranked as
 * Blockscout ranks them: most holders first, then by name (unnamed last), then by address; after the
 * keyset when given. `words` is a tsquery of prefixes ('tether:* & usd:*'), made of letters and digits only.
 */
export async function searchTokens(db: Db, words: string, after: TokenSearchKeyset | null, limit: number): Promise<TokenItem[]> {
  const params = new SqlParams();
  const query = params.add(words);
  const below = after === null ? '' : `AND ${afterToken(params, after)}`;
  // The page is cut before the token's columns are added: their lookups, computed for every match
  // before the sort, cost 128 ms for a word of 10,761 tokens.
  const { rows } = await db.query<TokenRow>(
    `SELECT ${tokenColumns('k')}
     FROM (SELECT * FROM tokens k
           WHERE ${tokenSearchWords('k')} @@ to_tsquery('simple', ${query}) ${below}
           ORDER BY ${searchOrder} LIMIT ${params.add(limit)}) k
     ORDER BY ${searchOrder}`,
    params.values,
  );
  return rows.map(toTokenItem);
}

/** The tokens after the keyset in searchTokens' order, whose keys run both ways. */
function afterToken(params: SqlParams, after: TokenSearchKeyset): string {
  const holders = `${params.add(after.holdersCount.toString())}::bigint`;
  const address = `${params.add(byteaFromHex(after.address))}::bytea`;
  let sameName = `k.name IS NULL AND k.address > ${address}`;
  if (after.name !== null) {
    const name = `${params.add(after.name)}::text`;
    sameName = `k.name > ${name} OR k.name IS NULL OR (k.name = ${name} AND k.address > ${address})`;
  }
  return `(k.holders_count < ${holders} OR (k.holders_count = ${holders} AND (${sameName})))`;
}

/** The token whose name or symbol is exactly the text, in any case; null when none is, or several are. */
export async function findTokenByExactName(db: Db, text: string): Promise<Address | null> {
  const { rows } = await db.query<{ address: Buffer }>(
    `SELECT address FROM tokens WHERE lower(name) = lower($1)
     UNION
     SELECT address FROM tokens WHERE lower(symbol) = lower($1)
     LIMIT 2`,
    [text],
  );
  return rows.length === 1 ? hexFromBytea(rows[0]!.address) : null;
}
