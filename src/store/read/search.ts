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
 * The words of a token a search matches, as migration 072's column holds them: its symbol's and its
 * name's, lowercased, unstemmed.
 */
export const tokenSearchWords = (alias: string): string => `${alias}.search_words`;

/** The condition that a token `k` holds every word of `words`, a tsquery of prefixes, as searchTokens reads it. */
export const tokenMatchesWords = (params: SqlParams, words: string): string =>
  `${tokenSearchWords('k')} @@ to_tsquery('simple', ${params.add(words)})`;

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

/** The tokens searchTokens reads in rank order, at most, for a page of matches, before it sorts the matches after all. */
const rankedTokens = 500;

/**
 * The tokens whose symbol and name hold every word of the query as a prefix of one of theirs, ranked as
 * Blockscout ranks them: most holders first, then by name (unnamed last), then by address; after the
 * keyset when given. `words` is a tsquery of prefixes ('tether:* & usd:*'), made of letters and digits only.
 *
 * The tokens after the keyset are read in rank order, through migration 069's index, testing each
 * one's words (migration 072's column), until the page is full: a word most tokens hold costs what a
 * page costs, however many tokens match it. When `rankedTokens` tokens hold fewer matches than a page
 * (a rare word), the full-text index finds every match, and they are sorted.
 */
export async function searchTokens(db: Db, words: string, after: TokenSearchKeyset | null, limit: number): Promise<TokenItem[]> {
  const params = new SqlParams();
  const match = tokenMatchesWords(params, words);
  const limitParam = params.add(limit);
  const ranges = after === null ? ['true'] : rangesAfter(params, after);
  const ranked = ranges
    .map((range) => `(SELECT * FROM tokens k WHERE ${range} ORDER BY ${searchOrder} LIMIT ${rankedTokens})`)
    .join(' UNION ALL ');
  const below = after === null ? 'true' : afterToken(params, after);
  // The token's columns are added to the page's tokens only (their lookups for every match cost 128 ms for 10,761 matches).
  const { rows } = await db.query<TokenRow>(
    `WITH ranked AS MATERIALIZED (
       SELECT * FROM (SELECT * FROM (${ranked}) k ORDER BY ${searchOrder} LIMIT ${rankedTokens}) k
       WHERE ${match} ORDER BY ${searchOrder} LIMIT ${limitParam})
     SELECT ${tokenColumns('k')}
     FROM (SELECT * FROM ranked WHERE (SELECT count(*) FROM ranked) = ${limitParam}
           UNION ALL
           SELECT * FROM (SELECT * FROM tokens k WHERE ${match} AND ${below} ORDER BY ${searchOrder} LIMIT ${limitParam}) k
           WHERE (SELECT count(*) FROM ranked) < ${limitParam}) k
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

/**
 * The same tokens as afterToken's, as disjoint ranges of migration 069's index, in its order: the rest
 * of the keyset's holder count (named after its name, then unnamed), then the lower holder counts.
 */
function rangesAfter(params: SqlParams, after: TokenSearchKeyset): string[] {
  const count = `${params.add(after.holdersCount.toString())}::bigint`;
  const address = `${params.add(byteaFromHex(after.address))}::bytea`;
  // The unnamed of a holder count are found by equality, which the planner sees as one narrow range
  // (it would sort them from a sequential scan otherwise); Merge Append sorts what it reads of them,
  // up to rankedTokens, as the holder count then drops out of the range's order.
  const unnamed = `k.holders_count = ${count} AND k.name IS NULL`;
  const fewer = `k.holders_count < ${count}`;
  if (after.name === null) return [`${unnamed} AND k.address > ${address}`, fewer];
  // Not k.holders_count = $1 here, for the reason above: Merge Append would sort the named, which
  // are most tokens of a holder count, up to rankedTokens.
  const named = `k.holders_count >= ${count} AND k.holders_count <= ${count} AND (k.name, k.address) > (${params.add(after.name)}::text, ${address})`;
  return [named, unnamed, fewer];
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
