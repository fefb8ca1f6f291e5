import { type Static, Type } from '@sinclair/typebox';
import { type InternalTransactionRecord, hexQuantity } from '../../model.js';
import { Nullable } from '../schemas.js';

/**
 * Parity's three action shapes (call, create, suicide) in one object of optional members, and its two
 * result shapes likewise: each shape's keys are in alphabetical order, so one alphabetical schema keeps
 * them all in Parity's order, and lets the response serializer compile instead of trying branches.
 */
const ActionSchema = Type.Object({
  address: Type.Optional(Type.String()),
  balance: Type.Optional(Type.String()),
  callType: Type.Optional(Nullable(Type.String())),
  creationMethod: Type.Optional(Type.String()),
  from: Type.Optional(Type.String()),
  gas: Type.Optional(Type.String()),
  init: Type.Optional(Nullable(Type.String())),
  input: Type.Optional(Nullable(Type.String())),
  refundAddress: Type.Optional(Nullable(Type.String())),
  to: Type.Optional(Nullable(Type.String())),
  value: Type.Optional(Type.String()),
});

const ResultSchema = Type.Object({
  address: Type.Optional(Nullable(Type.String())),
  code: Type.Optional(Nullable(Type.String())),
  gasUsed: Type.String(),
  output: Type.Optional(Nullable(Type.String())),
});

export const RawTraceEntrySchema = Type.Object({
  action: ActionSchema,
  error: Type.Optional(Type.String()),
  result: Nullable(ResultSchema),
  subtraces: Type.Integer(),
  traceAddress: Type.Array(Type.Integer()),
  transactionHash: Type.String(),
  type: Type.String(),
});

function action(frame: InternalTransactionRecord): Static<typeof ActionSchema> {
  switch (frame.type) {
    case 'call':
      return {
        callType: frame.callType,
        from: frame.from,
        gas: hexQuantity(frame.gas ?? 0n),
        input: frame.input,
        to: frame.to,
        value: hexQuantity(frame.value),
      };
    case 'create':
    case 'create2':
      return {
        creationMethod: frame.type,
        from: frame.from,
        gas: hexQuantity(frame.gas ?? 0n),
        init: frame.input,
        value: hexQuantity(frame.value),
      };
    case 'selfdestruct':
      return { address: frame.from, balance: hexQuantity(frame.value), refundAddress: frame.to };
  }
}

function result(frame: InternalTransactionRecord): Static<typeof ResultSchema> | null {
  if (frame.gasUsed === null) return null;
  if (frame.type === 'call') return { gasUsed: hexQuantity(frame.gasUsed), output: frame.output };
  return { address: frame.createdContract, code: frame.output, gasUsed: hexQuantity(frame.gasUsed) };
}

/**
 * E6: a transaction's frames as Parity's trace_transaction writes them, whatever the node's tracer
 * (a creation is a "create" with its creationMethod, a selfdestruct a "suicide"), keys in Parity's order.
 */
export function rawTraceView(frames: readonly InternalTransactionRecord[]) {
  const children = new Map<string, number>();
  for (const frame of frames) {
    const parent = frame.traceAddress.slice(0, -1).join(',');
    if (frame.traceAddress.length > 0) children.set(parent, (children.get(parent) ?? 0) + 1);
  }
  return frames.map((frame) => ({
    action: action(frame),
    ...(frame.error === null ? {} : { error: frame.error }),
    result: result(frame),
    subtraces: children.get(frame.traceAddress.join(',')) ?? 0,
    traceAddress: frame.traceAddress,
    transactionHash: frame.transactionHash,
    type: frame.type === 'selfdestruct' ? 'suicide' : frame.type === 'create2' ? 'create' : frame.type,
  }));
}
