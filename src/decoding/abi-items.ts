import { type AbiEvent, type AbiFunction, type AbiParameter, parseAbiItem, toEventSelector, toFunctionSelector } from 'viem';
import type { Hex } from '../model.js';

/**
 * An ABI as JSON: a verified contract's, or one item of contract_methods. Entries that are not
 * well-formed functions, events or errors (a constructor, a fallback, a malformed entry) are skipped.
 */
export type Abi = readonly unknown[];

export type ItemType = 'function' | 'event' | 'error';

/** A function, event or error of an ABI: what selects it and what it decodes. */
export interface AbiItem {
  type: ItemType;
  name: string;
  inputs: readonly (AbiParameter & { indexed?: boolean })[];
}

/** One function, event or error with its selector: 4 bytes for a function or an error, the whole topic for an event. */
export interface IndexedItem {
  type: ItemType;
  item: AbiItem;
  selector: Hex;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const bits = '(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)';
/** A Solidity ABI type: an elementary type or a tuple, then any array suffixes. */
const abiType = new RegExp(`^(address|bool|string|bytes([1-9]|[12][0-9]|3[0-2])?|u?int${bits}?|function|tuple)(\\[[0-9]*\\])*$`);

function isParameter(value: unknown): value is AbiParameter {
  if (!isRecord(value) || typeof value.type !== 'string' || !abiType.test(value.type)) return false;
  if (value.name !== undefined && typeof value.name !== 'string') return false;
  if (!value.type.startsWith('tuple')) return true;
  return Array.isArray(value.components) && value.components.every(isParameter);
}

const itemTypes: readonly ItemType[] = ['function', 'event', 'error'];

function asItem(value: unknown): { type: ItemType; item: AbiItem } | null {
  if (!isRecord(value) || typeof value.name !== 'string' || value.name === '') return null;
  const type = itemTypes.find((t) => t === value.type);
  if (type === undefined || !Array.isArray(value.inputs) || !value.inputs.every(isParameter)) return null;
  // An anonymous event has no topic naming it: nothing selects it.
  if (type === 'event' && value.anonymous === true) return null;
  return { type, item: value as unknown as AbiItem };
}

function indexed(value: unknown): IndexedItem | null {
  const found = asItem(value);
  if (found === null) return null;
  try {
    const selector =
      found.type === 'event'
        ? toEventSelector(found.item as unknown as AbiEvent)
        : toFunctionSelector(found.item as unknown as AbiFunction);
    return Object.assign(found, { selector });
  } catch {
    // A type viem does not know (a typo in a hand-written ABI): the item cannot be selected.
    return null;
  }
}

/** An ABI's items by selector, in ABI order; built once per ABI object. */
type ItemsBySelector = Map<Hex, IndexedItem[]>;

const indexes = new WeakMap<Abi, ItemsBySelector>();

function itemsBySelector(abi: Abi): ItemsBySelector {
  let index = indexes.get(abi);
  if (index === undefined) {
    index = new Map();
    for (const entry of abi) {
      const item = indexed(entry);
      if (item === null) continue;
      const same = index.get(item.selector);
      if (same === undefined) index.set(item.selector, [item]);
      else same.push(item);
    }
    indexes.set(abi, index);
  }
  return index;
}

/** The items of a type an ABI has under a selector (lowercase), in ABI order. */
export const itemsWithSelector = (abi: Abi, type: ItemType, selector: Hex): IndexedItem[] =>
  (itemsBySelector(abi).get(selector) ?? []).filter((i) => i.type === type);

/** One row of contract_methods: a function, event or error of a verified ABI by its 4-byte selector (an event's topic cut to 4 bytes). */
export interface AbiEntry {
  selector: Hex;
  type: ItemType;
  item: AbiItem;
}

/** The functions, events and errors of an ABI, each with its 4-byte selector; constructor, fallback and receive are left out. */
export function abiEntries(abi: Abi): AbiEntry[] {
  return abi.flatMap((entry) => {
    const item = indexed(entry);
    return item === null ? [] : [{ selector: item.selector.slice(0, 10) as Hex, type: item.type, item: item.item }];
  });
}

/**
 * A signature as a one-item ABI: `function transfer(address,uint256)`, `event Transfer(address,address,uint256)`
 * or `error Unauthorized(address)`; its parameters have no names. Empty for a signature viem cannot read.
 */
export function abiOfSignature(signature: string): Abi {
  try {
    return [parseAbiItem(signature)];
  } catch {
    return [];
  }
}
