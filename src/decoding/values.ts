import type { AbiParameter } from 'viem';

/** A decoded value as Blockscout renders it: a string, or an array (of an array's elements, of a tuple's components). */
export type DecodedValue = string | DecodedValue[];

const arraySuffix = /\[\d*\]$/;

type TupleParameter = AbiParameter & { components: readonly AbiParameter[] };

/** A parameter's type as Blockscout writes it: a tuple is its components' types in parentheses, `(address,uint256)[]`. */
export function canonicalType(parameter: AbiParameter): string {
  if (!parameter.type.startsWith('tuple')) return parameter.type;
  const { components } = parameter as TupleParameter;
  return `(${components.map(canonicalType).join(',')})${parameter.type.slice('tuple'.length)}`;
}

/**
 * A value viem decoded for a parameter, as Blockscout renders it (DecodingHelper.value_json):
 * integers in decimal, booleans as "true" and "false", addresses checksummed (viem decodes them so),
 * bytes in lowercase hex, arrays and tuples as arrays (a tuple's components in order).
 */
export function renderValue(parameter: AbiParameter, value: unknown): DecodedValue {
  if (arraySuffix.test(parameter.type)) {
    const element = Object.assign({}, parameter, { type: parameter.type.replace(arraySuffix, '') });
    return (value as readonly unknown[]).map((v) => renderValue(element, v));
  }
  if (parameter.type === 'tuple') {
    const { components } = parameter as TupleParameter;
    // viem decodes a tuple as an object when each component has a name, else as an array.
    const at = (c: AbiParameter, i: number): unknown => (Array.isArray(value) ? value[i] : (value as Record<string, unknown>)[c.name!]);
    return components.map((c, i) => renderValue(c, at(c, i)));
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}
