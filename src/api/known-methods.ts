import type { DecodedInput } from '../decoding/index.js';
import { type Hex, isHexData } from '../model.js';

/** The method names clients filter transactions by, and their 4-byte selectors (Blockscout's table). */
export const knownMethodSelectors = {
  approve: '0x095ea7b3',
  transfer: '0xa9059cbb',
  multicall: '0x5ae401dc',
  mint: '0x40c10f19',
  commit: '0xf14fcbc8',
} as const satisfies Record<string, Hex>;

export type KnownMethodName = keyof typeof knownMethodSelectors;

const namesBySelector = new Map<string, KnownMethodName>(
  Object.entries(knownMethodSelectors).map(([name, selector]) => [selector, name as KnownMethodName]),
);

/** The known name of a lowercase 0x-prefixed selector. */
export const knownMethodName = (selector: Hex): KnownMethodName | undefined => namesBySelector.get(selector);

/** The method an input calls: its known name, else its 4-byte selector; null for an input shorter than a selector. */
export function calledMethod(input: Hex): string | null {
  if (input.length < 10) return null;
  const selector = input.slice(0, 10) as Hex;
  return knownMethodName(selector) ?? selector;
}

/** The method a call names: its decoded function's name, else as calledMethod names it. */
export const methodName = (decoded: DecodedInput | null, input: Hex): string | null =>
  decoded === null ? calledMethod(input) : decoded.method_call.slice(0, decoded.method_call.indexOf('('));

const isKnownMethodName = (value: string): value is KnownMethodName => Object.hasOwn(knownMethodSelectors, value);

/** The selector a method filter value names: a known method name, or a 4-byte selector (0x optional, any case). */
export function methodSelector(value: string): Hex | undefined {
  if (isKnownMethodName(value)) return knownMethodSelectors[value];
  const selector = value.startsWith('0x') ? value : `0x${value}`;
  return isHexData(selector, 4) ? (selector.toLowerCase() as Hex) : undefined;
}
