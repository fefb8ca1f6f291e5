import type { Address, TokenType } from '../../model.js';
import { byteaFromHex } from '../encode.js';
import { tokenMatchesWords } from './search.js';
import { type Db, SqlParams } from './sql.js';
import { type TokenItem, type TokenRow, toTokenItem, tokenColumns } from './tokens.js';

/** Where a page of the token list continues: after this token, in the order listTokens lists them. */
export interface TokenListKeyset {
  /** The price source's figures (decimal strings), null where it has none. */
  marketCap: string | null;
  fiatValue: string | null;
  holdersCount: bigint;
  /** The name the contract answered (not the token list's), null if none. */
  name: string | null;
  address: Address;
}

/** Blockscout's sort of the token list: the key first, then its default order. */
export interface TokenListOrder {
  by: 'circulating_market_cap' | 'fiat_value' | 'holders_count';
  direction: 'desc' | 'asc';
}

export interface TokenListFilters {
  order: TokenListOrder;
  /** The types listed, each read from its own range of one of migration 030's indexes; at least one. */
  types: readonly TokenType[];
  /** A tsquery of prefixes that the symbol and name must match ('tether:* & usd:*'); null: every token. */
  words: string | null;
}

/** A token of the list, with the name its order and keyset use. */
export interface TokenListItem extends TokenItem {
  ownName: string | null;
}

type TokenListRow = TokenRow & { own_name: string | null };

/** A token the price source gave a market cap or a price. */
const priced = (alias: string) =>
  `EXISTS (SELECT 1 FROM token_market m WHERE m.address = ${alias}.address
     AND (m.circulating_market_cap IS NOT NULL OR m.fiat_value IS NOT NULL))`;

/** Where a read in holders order starts: after a token, or at the first token of a holder count. */
type HoldersStart = { after: TokenListKeyset } | { fromHolders: bigint } | null;

/**
 * The tokens from `start` in the order of holders (most or fewest first), then name (unnamed last),
 * then address: disjoint ranges, each one range of an index (type, holders_count, name, address) in
 * that order once the type is fixed (the rest of the keyset's holder count, named after its name, then
 * unnamed; then every holder count beyond it), and the bound they share.
 */
function holdersRanges(
  params: SqlParams,
  start: Exclude<HoldersStart, null>,
  holders: 'desc' | 'asc',
): { ranges: string[]; bound: string } {
  const beyond = holders === 'desc' ? '<' : '>';
  if ('fromHolders' in start) {
    const bound = `k.holders_count ${beyond}= ${params.add(start.fromHolders.toString())}::bigint`;
    return { ranges: [bound], bound };
  }
  const { after } = start;
  const count = `${params.add(after.holdersCount.toString())}::bigint`;
  const address = `${params.add(byteaFromHex(after.address))}::bytea`;
  const sameHolders = `k.holders_count = ${count}`;
  const rest =
    after.name === null
      ? [`${sameHolders} AND k.name IS NULL AND k.address > ${address}`]
      : [`${sameHolders} AND (k.name, k.address) > (${params.add(after.name)}::text, ${address})`, `${sameHolders} AND k.name IS NULL`];
  return { ranges: [...rest, `k.holders_count ${beyond} ${count}`], bound: `k.holders_count ${beyond}= ${count}` };
}

/**
 * The tokens in holders order (see holdersRanges), leaving out the priced ones when `unpriced`.
 * Without words, each type and keyset range is read apart, in index order, up to the page's end, and
 * the pieces merged. With words, the full-text index (migrations 019 and 072) finds the matches, which
 * are sorted: a page costs what the matches number (a word all of 300,000 tokens hold, 0.8 s). Reading
 * the ranges in index order and checking the words row by row is faster for such a word, far slower
 * for most (a word of 0.6% of those tokens: 0.7 s, against 12 ms sorted, when each row's name and
 * symbol were parsed; 12 ms, against under 1 ms, for a word of one token of 21,463 with the words
 * kept in a column).
 */
function byHolders(
  params: SqlParams,
  filters: TokenListFilters,
  holders: 'desc' | 'asc',
  unpriced: boolean,
  start: HoldersStart,
  limit: number,
): string {
  const keyset = start === null ? null : holdersRanges(params, start, holders);
  const limitParam = params.add(limit);
  const order = holdersOrder(holders);
  const shared = unpriced ? [`NOT ${priced('k')}`] : [];
  if (filters.words === null) {
    const pieces = filters.types.flatMap((type) => {
      const typeParam = params.add(type);
      return (keyset?.ranges ?? [null]).map((range) => {
        const conditions = [`k.type = ${typeParam}`, ...(range === null ? [] : [range]), ...shared];
        return `(SELECT * FROM tokens k WHERE ${conditions.join(' AND ')} ORDER BY ${order} LIMIT ${limitParam})`;
      });
    });
    return `SELECT * FROM (${pieces.join(' UNION ALL ')}) k ORDER BY ${order} LIMIT ${limitParam}`;
  }
  const conditions = [tokenMatchesWords(params, filters.words), `k.type = ANY(${params.add(filters.types)}::text[])`, ...shared];
  if (keyset !== null) conditions.push(keyset.bound, `(${keyset.ranges.map((range) => `(${range})`).join(' OR ')})`);
  // OFFSET 0 keeps the matches found apart from their order: the planner, which cannot tell how many
  // tokens a prefix matches, would otherwise read the index in order for a rare word too.
  return `SELECT * FROM (SELECT * FROM tokens k WHERE ${conditions.join(' AND ')} OFFSET 0) k ORDER BY ${order} LIMIT ${limitParam}`;
}

/** One key of an order over few rows, each key its own direction and place of nulls. */
interface SortKey {
  expression: string;
  type: string;
  direction: 'asc' | 'desc';
  nullsFirst: boolean;
  value: (after: TokenListKeyset) => unknown;
}

/** The rows strictly after the keyset in the order of `keys`: one disjunct per key, the keys before it equal. */
function afterSortKeys(params: SqlParams, keys: readonly SortKey[], after: TokenListKeyset): string {
  const equal: string[] = [];
  const disjuncts: string[] = [];
  for (const key of keys) {
    const value = key.value(after);
    const { expression: e } = key;
    const bound = value === null ? null : `${params.add(value)}::${key.type}`;
    const beyond = key.direction === 'desc' ? '<' : '>';
    let later: string | null;
    if (bound === null) later = key.nullsFirst ? `${e} IS NOT NULL` : null;
    else later = key.nullsFirst ? `${e} ${beyond} ${bound}` : `(${e} ${beyond} ${bound} OR ${e} IS NULL)`;
    if (later !== null) disjuncts.push([...equal, later].join(' AND '));
    equal.push(bound === null ? `${e} IS NULL` : `${e} = ${bound}`);
  }
  return disjuncts.length === 0 ? 'false' : `(${disjuncts.map((d) => `(${d})`).join(' OR ')})`;
}

/**
 * The priced tokens (a few thousand at most: those the price source knows) in the order of `keys`,
 * where `lead` (null: either way) says whether the sort's market figure is there; after the keyset
 * when given.
 */
function pricedInOrder(
  params: SqlParams,
  filters: TokenListFilters,
  keys: readonly SortKey[],
  leadPresent: boolean | null,
  after: TokenListKeyset | null,
  limit: number,
): string {
  const conditions = [
    '(m.circulating_market_cap IS NOT NULL OR m.fiat_value IS NOT NULL)',
    `k.type = ANY(${params.add(filters.types)}::text[])`,
  ];
  if (filters.words !== null) conditions.push(tokenMatchesWords(params, filters.words));
  const lead = leadColumn(filters.order);
  if (leadPresent !== null) conditions.push(`${lead} IS ${leadPresent ? 'NOT ' : ''}NULL`);
  if (after !== null) conditions.push(afterSortKeys(params, keys, after));
  const order = keys.map((k) => `${k.expression} ${k.direction.toUpperCase()} NULLS ${k.nullsFirst ? 'FIRST' : 'LAST'}`).join(', ');
  return `SELECT k.*, row_number() OVER (ORDER BY ${order}) AS ordinal
    FROM tokens k JOIN token_market m ON m.address = k.address
    WHERE ${conditions.join(' AND ')} ORDER BY ${order} LIMIT ${params.add(limit)}`;
}

const leadColumn = (order: TokenListOrder) => (order.by === 'fiat_value' ? 'm.fiat_value' : 'm.circulating_market_cap');

/** Blockscout's default order: market cap, then price, most first (nulls last), then most holders, then name (unnamed last), then address. */
const defaultKeys: readonly SortKey[] = [
  { expression: 'm.circulating_market_cap', type: 'numeric', direction: 'desc', nullsFirst: false, value: (a) => a.marketCap },
  { expression: 'm.fiat_value', type: 'numeric', direction: 'desc', nullsFirst: false, value: (a) => a.fiatValue },
  { expression: 'k.holders_count', type: 'bigint', direction: 'desc', nullsFirst: false, value: (a) => a.holdersCount.toString() },
  { expression: 'k.name', type: 'text', direction: 'asc', nullsFirst: false, value: (a) => a.name },
  { expression: 'k.address', type: 'bytea', direction: 'asc', nullsFirst: false, value: (a) => byteaFromHex(a.address) },
];

/**
 * The order of a sort: its key in its direction (an ascending one puts nulls first, as Blockscout's
 * asc_nulls_first), then the default order's other keys; without the sort's key where `withKey` is
 * false (a run where it is null throughout).
 */
function sortKeys(order: TokenListOrder, withKey: boolean): SortKey[] {
  const expression = { circulating_market_cap: 'm.circulating_market_cap', fiat_value: 'm.fiat_value', holders_count: 'k.holders_count' }[
    order.by
  ];
  const key = defaultKeys.find((k) => k.expression === expression)!;
  const others = defaultKeys.filter((k) => k !== key);
  return withKey ? [Object.assign({}, key, { direction: order.direction, nullsFirst: order.direction === 'asc' }), ...others] : others;
}

/**
 * A run of the list: whether a keyset's token is in it, the statement that reads its tokens after a
 * keyset within it, and the order of that statement's rows, by their columns.
 */
interface Segment {
  has: (after: TokenListKeyset) => boolean;
  rows: (params: SqlParams, after: TokenListKeyset | null, limit: number) => string;
  order: string;
}

const holdersOrder = (holders: 'desc' | 'asc') => `holders_count ${holders.toUpperCase()}, name ASC NULLS LAST, address ASC`;

const isPriced = (a: { marketCap: string | null; fiatValue: string | null }) => a.marketCap !== null || a.fiatValue !== null;

/**
 * The runs of a list sorted by a market figure. Blockscout's order puts the tokens without figures
 * (both keys null) together: most first, the priced tokens, then the others by holders; fewest first
 * (nulls first), the priced tokens without the sorted figure, the others, then the priced tokens with
 * it, fewest first.
 */
function marketSegments(filters: TokenListFilters): Segment[] {
  const { order } = filters;
  const unpricedRun: Segment = {
    has: (a) => !isPriced(a),
    rows: (params, after, limit) => byHolders(params, filters, 'desc', true, after === null ? null : { after }, limit),
    order: holdersOrder('desc'),
  };
  const leadOf = (a: TokenListKeyset) => (order.by === 'fiat_value' ? a.fiatValue : a.marketCap);
  const pricedRun = (leadPresent: boolean | null): Segment => ({
    has: (a) => isPriced(a) && (leadPresent === null || (leadOf(a) !== null) === leadPresent),
    rows: (params, after, limit) => pricedInOrder(params, filters, sortKeys(order, leadPresent !== false), leadPresent, after, limit),
    order: 'ordinal',
  });
  return order.direction === 'desc' ? [pricedRun(null), unpricedRun] : [pricedRun(false), unpricedRun, pricedRun(true)];
}

async function readTokens(db: Db, statement: (params: SqlParams) => string, order: string): Promise<TokenListItem[]> {
  const params = new SqlParams();
  const { rows } = await db.query<TokenListRow>(
    `SELECT ${tokenColumns('k')}, k.name AS own_name FROM (${statement(params)}) k ORDER BY ${order}`,
    params.values,
  );
  return rows.map((r) => Object.assign(toTokenItem(r), { ownName: r.own_name }));
}

/** The runs of a market sort, from the keyset's on, up to `limit` tokens. */
async function listByMarket(db: Db, filters: TokenListFilters, after: TokenListKeyset | null, limit: number): Promise<TokenListItem[]> {
  const runs = marketSegments(filters);
  const first = after === null ? 0 : runs.findIndex((run) => run.has(after));
  const items: TokenListItem[] = [];
  for (const [i, run] of runs.entries()) {
    if (i < first || items.length >= limit) continue;
    const from = i === first ? after : null;
    items.push(...(await readTokens(db, (params) => run.rows(params, from, limit - items.length), run.order)));
  }
  return items;
}

/** An address above every other: the keyset that comes after every token of its holder count, named or not. */
const lastAddress = `0x${'ff'.repeat(20)}` as Address;

/**
 * A holders sort, as Blockscout's: by holders, then its default order, so that within a holder count
 * the priced tokens come first, by market cap, then price, then name. Two reads merged by holder
 * count: the priced tokens sorted, the others from the token indexes.
 */
async function listByHolders(db: Db, filters: TokenListFilters, after: TokenListKeyset | null, limit: number): Promise<TokenListItem[]> {
  const { direction } = filters.order;
  // After an unpriced token, the priced ones of its holder count are behind; after a priced one, all the unpriced ones of its count are ahead.
  const pricedAfter =
    after === null || isPriced(after)
      ? after
      : Object.assign({}, after, { marketCap: null, fiatValue: null, name: null, address: lastAddress });
  const unpricedStart: HoldersStart = after === null ? null : isPriced(after) ? { fromHolders: after.holdersCount } : { after };
  const [pricedTokens, unpricedTokens] = await Promise.all([
    readTokens(db, (params) => pricedInOrder(params, filters, sortKeys(filters.order, true), null, pricedAfter, limit), 'ordinal'),
    readTokens(db, (params) => byHolders(params, filters, direction, true, unpricedStart, limit), holdersOrder(direction)),
  ]);
  const beyond = (a: TokenListItem, b: TokenListItem) =>
    direction === 'desc' ? a.holdersCount < b.holdersCount : a.holdersCount > b.holdersCount;
  const items: TokenListItem[] = [];
  let [p, u] = [0, 0];
  while (items.length < limit && (p < pricedTokens.length || u < unpricedTokens.length)) {
    const [nextPriced, nextUnpriced] = [pricedTokens[p], unpricedTokens[u]];
    if (nextPriced !== undefined && (nextUnpriced === undefined || !beyond(nextPriced, nextUnpriced))) {
      items.push(nextPriced);
      p++;
    } else {
      items.push(nextUnpriced!);
      u++;
    }
  }
  return items;
}

/**
 * GET /api/v2/tokens: the tokens of the given types in Blockscout's order (by default market cap, then
 * price, most first, then most holders, then name, unnamed last, then address; a sort's key before
 * those), after the keyset when given. The tokens without market figures, nearly all of them, are read
 * in holders order from the token indexes; the priced ones, few, are sorted.
 */
export async function listTokens(
  db: Db,
  filters: TokenListFilters,
  after: TokenListKeyset | null,
  limit: number,
): Promise<TokenListItem[]> {
  return filters.order.by === 'holders_count' ? listByHolders(db, filters, after, limit) : listByMarket(db, filters, after, limit);
}
