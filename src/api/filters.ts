import { type InvalidParameter, InvalidParametersError, invalidValueDetail } from './errors.js';

/**
 * Filter parameters as clients send them: a single value or a comma-separated list, where an empty
 * value means no filter and a value outside the allowed set is a 422 naming the parameter.
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; invalid: InvalidParameter };

/** One of the allowed values; absent or empty gives the default. */
export function parseChoice<T extends string>(param: string, raw: string | undefined, allowed: readonly T[], fallback: T): Parsed<T> {
  if (raw === undefined || raw === '') return { ok: true, value: fallback };
  if ((allowed as readonly string[]).includes(raw)) return { ok: true, value: raw as T };
  return { ok: false, invalid: { param, detail: invalidValueDetail(`one of ${allowed.join(', ')}`, raw) } };
}

/** The most items a comma-separated list may hold: Blockscout's clients send a handful, and each one costs the query work. */
export const maxListItems = 20;

/**
 * A comma-separated list, each item read by `readItem` (undefined when it is not allowed); empty items
 * are skipped and duplicates dropped. Absent or empty gives [] (no filter).
 */
export function parseCommaList<T>(
  param: string,
  raw: string | undefined,
  readItem: (item: string) => T | undefined,
  expected: string,
): Parsed<T[]> {
  const items = (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length > maxListItems) {
    const detail = invalidValueDetail(`a comma-separated list of at most ${maxListItems} values`, `${items.length} values`);
    return { ok: false, invalid: { param, detail } };
  }
  const values = new Set<T>();
  for (const trimmed of items) {
    const value = readItem(trimmed);
    if (value === undefined) {
      return { ok: false, invalid: { param, detail: invalidValueDetail(`a comma-separated list of ${expected}`, trimmed) } };
    }
    values.add(value);
  }
  return { ok: true, value: [...values] };
}

/** A comma-separated list of allowed values. */
export function parseAllowedList<T extends string>(param: string, raw: string | undefined, allowed: readonly T[]): Parsed<T[]> {
  return parseCommaList(
    param,
    raw,
    (item) => ((allowed as readonly string[]).includes(item) ? (item as T) : undefined),
    allowed.join(', '),
  );
}

type ParsedValues<R extends Record<string, Parsed<unknown>>> = {
  [K in keyof R]: R[K] extends Parsed<infer T> ? T : never;
};

/** The parsed values, or a 422 naming every parameter that failed. */
export function requireValid<R extends Record<string, Parsed<unknown>>>(results: R): ParsedValues<R> {
  const invalid: InvalidParameter[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, result] of Object.entries(results)) {
    if (result.ok) values[key] = result.value;
    else invalid.push(result.invalid);
  }
  if (invalid.length > 0) throw new InvalidParametersError(invalid);
  return values as ParsedValues<R>;
}
