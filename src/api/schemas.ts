import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * TypeBox building blocks shared by the routes and the views, and how a value is written to fit one.
 * A parameter's description completes "Expected …" in the 422 that names it.
 */

/** T or null. Written as OpenAPI's `nullable`, which the response serializer honours without trying each branch. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>(Object.assign({}, schema, { nullable: true }));

/** One of a few strings (a plain enum, which the response serializer handles without trying branches). */
export const StringEnum = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

/** A decimal string of an integer: amounts, gas and fees. */
export const DecimalString = Type.String({ pattern: '^-?[0-9]+$' });

/** An integer as a DecimalString (an id, a count), or null. */
export const decimal = (value: bigint | null): string | null => (value === null ? null : value.toString());

export const HexString = Type.String({ pattern: '^0x[0-9a-f]*$' });

/** ISO 8601 UTC with six fractional digits and Z. */
export const Timestamp = Type.String();

export const AddressHashParam = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'an address hash: 0x followed by 40 hex digits',
});

export const FullHashParam = Type.String({
  pattern: '^0x[0-9a-fA-F]{64}$',
  description: 'a hash: 0x followed by 64 hex digits',
});

export const BlockNumberOrHashParam = Type.String({
  pattern: '^([0-9]+|0x[0-9a-fA-F]{64})$',
  description: 'a block number (decimal digits) or a block hash (0x followed by 64 hex digits)',
});
