import { type Address, type Hex, isHexData } from '../model.js';
import { InvalidNodeResponseError } from './errors.js';

/** Reports a malformed value at `field`; never returns. */
export type Complain = (field: string, problem: string) => never;

/** Complains with an InvalidNodeResponseError about the answer for `subject` (e.g. `block 18000000`). */
export function complainAbout(subject: string): Complain {
  return (field, problem) => {
    throw new InvalidNodeResponseError(subject, field, problem);
  };
}

type Key<T> = keyof T & string;

/** Checked, converted access to the members of one JSON object received from a node. */
export interface NodeFields<T> {
  quantity(key: Key<T>): bigint;
  optionalQuantity(key: Key<T>): bigint | null;
  /** A quantity small enough for a JavaScript number: an index or a type. */
  smallNumber(key: Key<T>): number;
  optionalSmallNumber(key: Key<T>): number | null;
  hash(key: Key<T>): Hex;
  address(key: Key<T>): Address;
  optionalAddress(key: Key<T>): Address | null;
  data(key: Key<T>): Hex;
  optionalData(key: Key<T>): Hex | null;
  hashList(key: Key<T>): Hex[];
  list(key: Key<T>): unknown[];
  optionalList(key: Key<T>): unknown[] | null;
  /** Whether the member is there and not null. */
  has(key: Key<T>): boolean;
  /** Complains about each member that is there with a null value: a node leaves out what it lacks. */
  refuseNull(...keys: Key<T>[]): void;
  /** Complains about each member that is absent or null; `why` says what makes it required. */
  require(why: string, ...keys: Key<T>[]): void;
}

const QUANTITY = /^0x[0-9a-f]{1,64}$/i;

/**
 * Reads the object `value` found at `path` (e.g. `transactions[3]`); every problem is reported
 * through `complain` with the full path of the member. Absent and null optional members read as null.
 */
export function nodeFields<T>(value: unknown, path: string, complain: Complain): NodeFields<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    complain(path, `is not an object (${describe(value)})`);
  }
  const members = value as Record<string, unknown>;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  const present = (key: string): boolean => members[key] !== undefined && members[key] !== null;

  const quantity = (key: string): bigint => readQuantity(members[key], at(key), complain);
  const smallNumber = (key: string): number => {
    const number = quantity(key);
    if (number > BigInt(Number.MAX_SAFE_INTEGER)) complain(at(key), `is too large (${number})`);
    return Number(number);
  };
  const data = (key: string, bytes?: number): Hex => checkData(members[key], at(key), complain, bytes);
  const list = (key: string): unknown[] => {
    const member = members[key];
    if (!Array.isArray(member)) complain(at(key), `is not a list (${describe(member)})`);
    return member;
  };

  return {
    quantity,
    optionalQuantity: (key) => (present(key) ? quantity(key) : null),
    smallNumber,
    optionalSmallNumber: (key) => (present(key) ? smallNumber(key) : null),
    hash: (key) => data(key, 32),
    address: (key) => data(key, 20),
    optionalAddress: (key) => (present(key) ? data(key, 20) : null),
    data: (key) => data(key),
    optionalData: (key) => (present(key) ? data(key) : null),
    hashList: (key) => list(key).map((member, i) => checkData(member, `${at(key)}[${i}]`, complain, 32)),
    list,
    optionalList: (key) => (present(key) ? list(key) : null),
    has: present,
    refuseNull(...keys) {
      for (const key of keys) if (members[key] === null) complain(at(key), 'is null');
    },
    require(why, ...keys) {
      for (const key of keys) if (!present(key)) complain(at(key), `is ${describe(members[key])}, but ${why}`);
    },
  };
}

export function readQuantity(value: unknown, field: string, complain: Complain): bigint {
  if (typeof value !== 'string' || !QUANTITY.test(value)) complain(field, `is not a hex quantity (${describe(value)})`);
  return BigInt(value);
}

function checkData(value: unknown, field: string, complain: Complain, bytes?: number): Hex {
  if (!isHexData(value)) complain(field, `is not hex data (${describe(value)})`);
  if (bytes !== undefined && value.length !== 2 + 2 * bytes) {
    complain(field, `is not ${bytes} bytes long (${describe(value)})`);
  }
  return value.toLowerCase() as Hex;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
