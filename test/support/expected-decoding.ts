import { type AbiParameter, getAddress } from 'viem';

/**
 * Blockscout's decoded shapes (DecodedInput, DecodedLogInput) built from what viem decoded, written
 * here apart from src/decoding: the expected side of its tests.
 */

type Components = { components: readonly AbiParameter[] };

/** Blockscout's rendering of a value: decimal, "true"/"false", checksummed addresses, lists for arrays and tuples. */
export function expectedValue(parameter: AbiParameter, value: unknown): unknown {
  const array = /^(.*)\[\d*\]$/.exec(parameter.type);
  if (array) return (value as unknown[]).map((v) => expectedValue({ ...parameter, type: array[1]! }, v));
  if (parameter.type === 'tuple') {
    const { components } = parameter as unknown as Components;
    return components.map((c, i) => expectedValue(c, Array.isArray(value) ? value[i] : (value as any)[c.name!]));
  }
  if (parameter.type === 'address') return getAddress(value as string);
  if (typeof value === 'bigint' || typeof value === 'number') return value.toString();
  if (typeof value === 'boolean') return String(value);
  return value;
}

/** A type as Blockscout writes it: a tuple as its components' types in parentheses. */
export const expectedType = (p: AbiParameter): string =>
  p.type.startsWith('tuple') ? `(${(p as unknown as Components).components.map(expectedType).join(',')})${p.type.slice(5)}` : p.type;

interface Item {
  name: string;
  inputs: readonly (AbiParameter & { indexed?: boolean })[];
}

/** A call or an error: its selector (0x and 8 hex digits), and the arguments viem decoded, in order. */
export function expectedInput(item: Item, selector: string, args: readonly unknown[]) {
  const parameters = item.inputs.map((input, i) => ({
    name: input.name || `arg${i}`,
    type: expectedType(input),
    value: expectedValue(input, args[i]),
  }));
  return {
    method_id: selector.slice(2, 10),
    method_call: `${item.name}(${parameters.map((p) => `${p.type} ${p.name}`).join(', ')})`,
    parameters,
  };
}

/** Indexed values that a topic holds the hash of: viem, as Blockscout, gives the topic itself. */
const hashedInTopic = (p: AbiParameter) => ['string', 'bytes', 'tuple'].includes(p.type) || p.type.endsWith(']');

/** A log: its first topic, and the arguments viem decoded (by name, or by place when some are unnamed). */
export function expectedLog(item: Item, topic0: string, args: unknown) {
  const parameters = item.inputs.map((input, i) => {
    const value = Array.isArray(args) ? args[i] : (args as Record<string, unknown>)[input.name!];
    const indexed = input.indexed === true;
    return {
      name: input.name || `arg${i}`,
      type: expectedType(input),
      indexed,
      value: indexed && hashedInTopic(input) ? value : expectedValue(input, value),
    };
  });
  return {
    method_id: topic0.slice(2, 10),
    method_call: `${item.name}(${parameters.map((p) => `${p.type} ${p.indexed ? 'indexed ' : ''}${p.name}`).join(', ')})`,
    parameters,
  };
}
