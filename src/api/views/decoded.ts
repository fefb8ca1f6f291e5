import { Type } from '@sinclair/typebox';
import type { DecodedValue } from '../../decoding/index.js';

// The decoded shapes of Blockscout's DecodedInput and DecodedLogInput, which src/decoding produces.

/**
 * A string (a number in decimal, an address, bytes in hex, "true" or "false"), or an array of values
 * (an array's elements, a tuple's components), nested as deep as the type is. Serialized as it is.
 */
const DecodedValueSchema = Type.Unsafe<DecodedValue>({
  description: 'a string, or an array of decoded values (the elements of an array, the components of a tuple)',
});

export const DecodedInputSchema = Type.Object({
  method_call: Type.String(),
  method_id: Type.String(),
  parameters: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), value: DecodedValueSchema })),
});

export const DecodedLogSchema = Type.Object({
  method_call: Type.String(),
  method_id: Type.String(),
  parameters: Type.Array(Type.Object({ indexed: Type.Boolean(), name: Type.String(), type: Type.String(), value: DecodedValueSchema })),
});
