import type { TokenType } from '../model.js';
import { type Parsed, parseCommaList } from './filters.js';

export const tokenTypes = ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404'] as const satisfies readonly TokenType[];

/**
 * A `type` list of token types, as Blockscout reads it: case-insensitive, optionally in brackets.
 * Absent or empty: no filter.
 */
export function parseTokenTypes<T extends TokenType>(raw: string | undefined, allowed: readonly T[]): Parsed<T[]> {
  const unbracketed = raw?.replace(/^\[(.*)\]$/, '$1');
  return parseCommaList('type', unbracketed, (item) => allowed.find((type) => type === item.toUpperCase()), allowed.join(', '));
}
