import { Type } from '@sinclair/typebox';
import type { Address, Hex } from '../model.js';

/**
 * What a search query asks for, read as Blockscout reads it (Explorer.Chain.Search): an address or a
 * 32-byte hash (0x optional), a block number, the words of a token's symbol or name, or nothing.
 */
export type SearchQuery =
  | { kind: 'address'; address: Address }
  | { kind: 'hash'; hash: Hex }
  /** A block number; of three digits or more, also the words of a token ("100" finds "100x Coin"). */
  | { kind: 'number'; number: bigint; words: string | null }
  | { kind: 'words'; words: string }
  | { kind: 'none' };

export const maxQueryLength = 256;

/** The `q` of the three search endpoints. */
export const SearchQueryParam = Type.String({
  minLength: 1,
  maxLength: maxQueryLength,
  pattern: '\\S',
  description: `a search query: 1 to ${maxQueryLength} characters, not all blank`,
});

// Blockscout looks for words from three characters on: a shorter query is a block number or nothing.
const minWordsLength = 3;
const maxBlockNumber = 2n ** 63n - 1n;

/**
 * The query's runs of letters and digits, each a prefix of a word, all required: a tsquery that needs
 * no escaping ('tether:* & usd:*'); null when the query has none. Other characters separate words.
 */
export function prefixWords(query: string): string | null {
  const words = query.match(/[a-zA-Z0-9]+/g);
  return words === null ? null : words.map((word) => `${word}:*`).join(' & ');
}

export function parseSearchQuery(raw: string): SearchQuery {
  const query = raw.trim();
  const hex = /^(?:0x)?([0-9a-fA-F]+)$/.exec(query)?.[1];
  if (hex?.length === 40) return { kind: 'address', address: `0x${hex.toLowerCase()}` };
  if (hex?.length === 64) return { kind: 'hash', hash: `0x${hex.toLowerCase()}` };
  const words = [...query].length >= minWordsLength ? prefixWords(query) : null;
  if (/^[0-9]+$/.test(query) && BigInt(query) <= maxBlockNumber) return { kind: 'number', number: BigInt(query), words };
  return words === null ? { kind: 'none' } : { kind: 'words', words };
}

/**
 * The ENS name a query may be, lowercased: text with a dot between labels and no blank ("vitalik.eth");
 * null otherwise. Names are kept normalized, so a lowercase query matches them exactly.
 */
export function ensNameQuery(raw: string): string | null {
  const query = raw.trim().toLowerCase();
  return /^[^\s.]+(\.[^\s.]+)+$/u.test(query) ? query : null;
}

/**
 * How many matches of each category quick search shows, `total` in all, as Blockscout shares them out:
 * in rounds, from the category with the fewest matches up, each an equal share of what is left (at
 * least one), until the total is reached or every match is taken.
 */
export function balancedCounts(lengths: readonly number[], total: number): number[] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const left = [...lengths];
  const taken = lengths.map(() => 0);
  let remaining = total;
  while (remaining > 0 && left.some((n) => n > 0)) {
    const categories = left.filter((n) => n > 0).length;
    const share = remaining < categories ? 1 : Math.floor(remaining / categories);
    let round = 0;
    for (const i of order) {
      const take = round >= remaining ? 0 : Math.min(left[i]!, share);
      left[i]! -= take;
      taken[i]! += take;
      round += take;
    }
    remaining -= round;
  }
  return taken;
}
