import type { Address, Hex } from '../../model.js';
import type { ListWindow } from '../../store/read/etherscan.js';
import { type ActionAnswer, failure } from './envelope.js';

/**
 * An action's parameters, from the query string and the body together (the body's win), by their
 * exact names; a repeated parameter counts by its last value, as Blockscout's parser takes it.
 */
export type ActionParams = ReadonlyMap<string, string>;

const text = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;

function addAll(into: Map<string, string>, source: unknown): void {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) return;
  for (const [name, value] of Object.entries(source)) {
    const last = Array.isArray(value) ? value.at(-1) : value;
    const asText = text(last) ?? (typeof last === 'object' && last !== null ? JSON.stringify(last) : null);
    if (asText !== null) into.set(name, asText);
  }
}

export function actionParams(query: unknown, body: unknown): ActionParams {
  const params = new Map<string, string>();
  addAll(params, query);
  addAll(params, body);
  return params;
}

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const hashPattern = /^0x[0-9a-fA-F]{64}$/;
const integerPattern = /^[0-9]{1,15}$/;

export const parseAddress = (value: string | undefined): Address | null =>
  value !== undefined && addressPattern.test(value) ? (value.toLowerCase() as Address) : null;

export const parseHash = (value: string | undefined): Hex | null =>
  value !== undefined && hashPattern.test(value) ? (value.toLowerCase() as Hex) : null;

/** The address parameter named, or the answer that refuses it (Blockscout words an invalid one per action). */
export function addressOf(params: ActionParams, name: string, invalid = 'Invalid address hash'): Address | ActionAnswer {
  const given = params.get(name);
  if (given === undefined) return failure(`Query parameter '${name}' is required`);
  return parseAddress(given) ?? failure(invalid);
}

/** A non-negative decimal integer small enough to be exact; null for anything else. */
export const parseCount = (value: string | undefined): number | null =>
  value !== undefined && integerPattern.test(value) ? Number(value) : null;

/** The most rows one request reaches: page × offset may not go past it (Etherscan.page_size_max). */
export const maxResultWindow = 10_000;

/**
 * page, offset, sort, startblock and endblock as Blockscout reads them: a malformed value is ignored
 * for its default (page 1 of 10,000 rows, oldest first, every block); a window past 10,000 rows is refused.
 */
export function listWindow(params: ActionParams): ListWindow | ActionAnswer {
  const page = parseCount(params.get('page'));
  const offset = parseCount(params.get('offset'));
  const paged = page !== null && page > 0 && offset !== null && offset > 0;
  if (paged && page * offset > maxResultWindow) {
    return failure(`Result window is too large, PageNo x Offset size must be less than or equal to ${maxResultWindow}`);
  }
  const sort = params.get('sort');
  return {
    page: paged ? page : 1,
    offset: paged ? offset : maxResultWindow,
    descending: sort === 'desc',
    startBlock: parseCount(params.get('startblock')),
    endBlock: parseCount(params.get('endblock')),
  };
}

export const isAnswer = (value: object): value is ActionAnswer => 'httpStatus' in value;
