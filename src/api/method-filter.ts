import type { Hex } from '../model.js';
import { readSelectorsNamed } from '../store/read/method-names.js';
import type { Db } from '../store/read/sql.js';
import { InvalidParametersError, invalidValueDetail } from './errors.js';
import { methodSelector } from './known-methods.js';

/** A value of the transaction lists' `method` filter: a selector (or a name of Blockscout's table), or a name to look up. */
export type MethodFilterValue = { selector: Hex } | { name: string };

const functionName = /^[A-Za-z_$][A-Za-z0-9_$]{0,255}$/;

export const methodFilterExpected = 'method names or 4-byte selectors';

/** A filter value read: 8 hex digits (0x optional) or a name of Blockscout's table as their selector, else a function name. */
export function methodFilterValue(value: string): MethodFilterValue | undefined {
  const selector = methodSelector(value);
  if (selector !== undefined) return { selector };
  return functionName.test(value) ? { name: value } : undefined;
}

/** The most selectors one filter may stand for: each is an index scan per page. */
export const maxMethodSelectors = 100;

const invalidMethod = (expected: string, received: string): InvalidParametersError =>
  new InvalidParametersError([{ param: 'method', detail: invalidValueDetail(expected, received) }]);

/**
 * The selectors a method filter stands for: its selectors, and those of every function its names name
 * in a verified ABI or the signature database (`withdraw` is several functions). A 422 naming `method`
 * for a name nothing knows, or for names that stand for more than maxMethodSelectors selectors.
 */
export async function resolveMethodFilter(db: Db, values: readonly MethodFilterValue[]): Promise<Hex[]> {
  const selectors = new Set(values.flatMap((value) => ('selector' in value ? [value.selector] : [])));
  const names = values.flatMap((value) => ('name' in value ? [value.name] : []));
  const named = await readSelectorsNamed(db, names, maxMethodSelectors + 1);
  for (const found of named.values()) for (const selector of found) selectors.add(selector);
  if (selectors.size > maxMethodSelectors) {
    throw invalidMethod(`${methodFilterExpected} standing for at most ${maxMethodSelectors} selectors`, names.join(','));
  }
  const unknown = names.find((name) => !named.has(name));
  if (unknown !== undefined)
    throw invalidMethod(`${methodFilterExpected} that a verified contract or the signature database knows`, unknown);
  return [...selectors];
}
