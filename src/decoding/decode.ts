import { type AbiEvent, type AbiParameter, decodeAbiParameters, decodeEventLog, encodeAbiParameters } from 'viem';
import { type Hex, isHexData } from '../model.js';
import { type Abi, type AbiItem, type ItemType, itemsWithSelector } from './abi-items.js';
import { type DecodedValue, canonicalType, renderValue } from './values.js';

export interface DecodedParameter {
  name: string;
  type: string;
  value: DecodedValue;
}

/** A call (or a revert's error) decoded, in Blockscout's shape: `{method_id: 'a9059cbb', method_call: 'transfer(address to, uint256 value)', parameters}`. */
export interface DecodedInput {
  method_id: string;
  method_call: string;
  parameters: DecodedParameter[];
}

export interface DecodedLogParameter extends DecodedParameter {
  indexed: boolean;
}

/** A log decoded, in Blockscout's shape: the method_call names the indexed parameters (`address indexed from`). */
export interface DecodedLog {
  method_id: string;
  method_call: string;
  parameters: DecodedLogParameter[];
}

/** A parameter without a name is called arg0, arg1… by its place, as Blockscout calls it. */
const nameOf = (parameter: AbiParameter, index: number): string => (parameter.name ? parameter.name : `arg${index}`);

const methodCall = (name: string, parameters: readonly (DecodedParameter & { indexed?: boolean })[]): string =>
  `${name}(${parameters.map((p) => `${p.type} ${p.indexed ? 'indexed ' : ''}${p.name}`).join(', ')})`;

/** The selector and the arguments of calldata or revert data; null when it holds no selector. */
function split(data: Hex): { selector: Hex; args: Hex } | null {
  if (!isHexData(data) || data.length < 10) return null;
  return { selector: data.slice(0, 10).toLowerCase() as Hex, args: `0x${data.slice(10)}` };
}

/**
 * How well parameters explain the data they decoded: 2 when their values encoded again give the data
 * back exactly, 1 when they give its start (a call may carry bytes after its arguments), 0 when they
 * merely decode it.
 */
function fitOf(parameters: readonly AbiParameter[], values: readonly unknown[], data: Hex): number {
  let encoded: string;
  try {
    encoded = encodeAbiParameters(parameters, values).toLowerCase();
  } catch {
    return 0;
  }
  const given = data.toLowerCase();
  return encoded === given ? 2 : given.startsWith(encoded) ? 1 : 0;
}

const EXACT_FIT = 2;

/**
 * Which item of several under a selector decodes the data. A contract's own ABI names what was called:
 * the first of its items that decodes the data is it. Candidates (items other contracts verified,
 * signatures of the database) are guesses: the one that fits the data best (fitOf) wins, the first in
 * their order among equals, so that of several signatures sharing a selector the one whose types fit
 * is chosen, and the same one every time.
 */
type Choice = 'first' | 'best';

/** The function or error of the ABIs under the data's selector that decodes its arguments, as `choice` picks it. */
function decodeWithSelector(abis: readonly Abi[], type: ItemType, data: Hex, choice: Choice): DecodedInput | null {
  const parts = split(data);
  if (parts === null) return null;
  const items = abis.flatMap((abi) => itemsWithSelector(abi, type, parts.selector));
  // A sole candidate is chosen if it decodes, however well it fits.
  const compare = choice === 'best' && items.length > 1;
  let chosen: { item: AbiItem; values: readonly unknown[]; fit: number } | null = null;
  for (const { item } of items) {
    let values: readonly unknown[];
    try {
      values = decodeAbiParameters(item.inputs, parts.args);
    } catch {
      continue;
    }
    const fit = compare ? fitOf(item.inputs, values, parts.args) : EXACT_FIT;
    if (chosen === null || fit > chosen.fit) chosen = { item, values, fit };
    if (fit === EXACT_FIT) break;
  }
  if (chosen === null) return null;
  const { item, values } = chosen;
  const parameters = item.inputs.map((input, i) => ({
    name: nameOf(input, i),
    type: canonicalType(input),
    value: renderValue(input, values[i]),
  }));
  return { method_id: parts.selector.slice(2), method_call: methodCall(item.name, parameters), parameters };
}

/** The ABIs one piece of data is decoded with: the contract's own first, then the candidates under its selector. */
export interface DecodingAbis {
  /** The contract's verified ABI, its bytecode twin's, its implementations', in that order. */
  own: readonly Abi[];
  /** Items of other verified contracts (contract_methods), then signatures of the database, each in a stable order. */
  candidates: readonly Abi[];
}

const decodeWithAbis = (abis: DecodingAbis, type: ItemType, data: Hex): DecodedInput | null =>
  decodeWithSelector(abis.own, type, data, 'first') ?? decodeWithSelector(abis.candidates, type, data, 'best');

/** A call's input decoded with the contract's own ABIs, else with the candidate that fits it best (see Choice); null when none decodes it. */
export const decodeCall = (abis: DecodingAbis, input: Hex): DecodedInput | null => decodeWithAbis(abis, 'function', input);

/** The errors every Solidity contract may revert with, named as Blockscout names their parameters. */
const solidityErrors: Abi = [
  { type: 'error', name: 'Error', inputs: [{ name: 'reason', type: 'string' }] },
  { type: 'error', name: 'Panic', inputs: [{ name: 'errorCode', type: 'uint256' }] },
];

/** Revert data decoded as Error(string), Panic(uint256), an error of the contract's ABIs, or the candidate that fits best. */
export const decodeRevert = (abis: DecodingAbis, data: Hex): DecodedInput | null =>
  decodeWithAbis({ own: [solidityErrors, ...abis.own], candidates: abis.candidates }, 'error', data);

/** Topics that hash an indexed value rather than hold it: viem hands the topic back as it is, as Blockscout does. */
const hashedInTopic = (parameter: AbiParameter): boolean => /^(string|bytes|tuple)$|\]$/.test(parameter.type);

function decodeLogWith(event: AbiEvent, topics: [Hex, ...Hex[]], data: Hex): DecodedLog | null {
  let args: unknown;
  try {
    ({ args } = decodeEventLog({ abi: [event], topics, data, strict: true }));
  } catch {
    return null;
  }
  const parameters = event.inputs.map((input, i) => {
    const value: unknown = Array.isArray(args) ? args[i] : (args as Record<string, unknown> | undefined)?.[input.name!];
    const indexed = input.indexed === true;
    return {
      name: nameOf(input, i),
      type: canonicalType(input),
      indexed,
      value: indexed && hashedInTopic(input) ? String(value) : renderValue(input, value),
    };
  });
  return { method_id: topics[0].slice(2, 10), method_call: methodCall(event.name, parameters), parameters };
}

/** How well an event's unindexed parameters fit a log's data (fitOf), once the log decodes with it. */
function logFitOf(event: AbiEvent, data: Hex): number {
  const unindexed = event.inputs.filter((input) => input.indexed !== true);
  return fitOf(unindexed, decodeAbiParameters(unindexed, data), data);
}

/** The ways of choosing `count` of the first `size` places, the first places first: [0, 1], [0, 2], [1, 2] for two of three. */
function* choices(size: number, count: number, from = 0): Generator<number[]> {
  if (count === 0) {
    yield [];
    return;
  }
  for (let first = from; first <= size - count; first++) {
    for (const rest of choices(size, count - 1, first + 1)) yield [first, ...rest];
  }
}

/** Beyond this many parameters, an event of unknown layout is read with its first parameters indexed only. */
const MAX_LAYOUT_PARAMETERS = 12;

/**
 * The event as it may have been declared, given the topics of a log. A compiler's ABI says which
 * parameters are indexed; a signature of the database does not (none of its inputs says `indexed`):
 * every choice of as many parameters as the log has topics after the first is a possible layout, the
 * first parameters indexed first, the usual declaration.
 */
function layouts(event: AbiEvent, indexedCount: number): AbiEvent[] {
  if (event.inputs.some((input) => input.indexed !== undefined)) return [event];
  if (indexedCount > event.inputs.length) return [];
  const size = event.inputs.length;
  const picks = size > MAX_LAYOUT_PARAMETERS ? [[...Array(indexedCount).keys()]] : [...choices(size, indexedCount)];
  return picks.map((pick) =>
    Object.assign({}, event, { inputs: event.inputs.map((input, i) => Object.assign({}, input, { indexed: pick.includes(i) })) }),
  );
}

/** The event of the ABIs under the log's first topic that decodes it, as `choice` picks it. */
function decodeLogWithSelector(abis: readonly Abi[], topics: [Hex, ...Hex[]], data: Hex, choice: Choice): DecodedLog | null {
  const candidates = abis.flatMap((abi) =>
    itemsWithSelector(abi, 'event', topics[0]).flatMap(({ item }) => layouts(item as AbiEvent, topics.length - 1)),
  );
  // A sole candidate is chosen if it decodes, however well it fits.
  const compare = choice === 'best' && candidates.length > 1;
  let chosen: { decoded: DecodedLog; fit: number } | null = null;
  for (const layout of candidates) {
    const decoded = decodeLogWith(layout, topics, data);
    if (decoded === null) continue;
    const fit = compare ? logFitOf(layout, data) : EXACT_FIT;
    if (fit === EXACT_FIT) return decoded;
    if (chosen === null || fit > chosen.fit) chosen = { decoded, fit };
  }
  return chosen?.decoded ?? null;
}

/** A log decoded with the emitter's own ABIs, else with the candidate event that fits it best (see Choice); null when none decodes it. */
export function decodeLog(abis: DecodingAbis, topics: readonly (Hex | null)[], data: Hex): DecodedLog | null {
  const present = topics.filter((t): t is Hex => t !== null).map((t) => t.toLowerCase() as Hex);
  const [first, ...rest] = present;
  if (first === undefined || !isHexData(first, 32) || !isHexData(data)) return null;
  const all: [Hex, ...Hex[]] = [first, ...rest];
  return decodeLogWithSelector(abis.own, all, data, 'first') ?? decodeLogWithSelector(abis.candidates, all, data, 'best');
}
