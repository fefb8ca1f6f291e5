import type { Hex, InternalTransactionRecord } from '../model.js';
import { type Complain, nodeFields } from './node-fields.js';
import { readCallType, readError, readObject } from './trace-fields.js';

// geth reports a revert with the frame's output (the revert data), as Parity does for "Reverted";
// every other failure leaves a Parity frame without a result.
const REVERTED = new Set(['execution reverted', 'Reverted']);

interface CallFrameFields {
  from: string;
  to: string;
  value: string;
  gas: string;
  gasUsed: string;
  input: string;
  output: string;
  calls: unknown;
}

/**
 * Flattens a geth callTracer tree into the frames Parity's trace_block lists for the same
 * transaction: depth first, each with the path of child positions that leads to it.
 * The top-level frame differs in gas only: geth counts the intrinsic gas, Parity does not.
 */
export function flattenCallFrame(
  root: unknown,
  transactionIndex: number,
  transactionHash: Hex,
  complain: Complain,
): InternalTransactionRecord[] {
  const records: InternalTransactionRecord[] = [];
  // Old geth writes a selfdestruct as its type alone: the destroyed contract is the caller's frame.
  const visit = (value: unknown, path: string, traceAddress: number[], caller: Hex | null) => {
    const frame = readObject(value, path, complain);
    const fields = nodeFields<CallFrameFields>(frame, path, complain);
    const type = String(frame.type).toUpperCase();
    const error = readError(frame.error, `${path}.error`, complain);
    const hasResult = error === null || REVERTED.has(error);
    const common = { transactionIndex, transactionHash, index: records.length, traceAddress, error };
    if (type === 'SELFDESTRUCT' || type === 'SUICIDE') {
      records.push({
        type: 'selfdestruct',
        callType: null,
        from: fields.optionalAddress('from') ?? caller ?? fields.address('from'),
        to: fields.optionalAddress('to'),
        createdContract: null,
        value: fields.optionalQuantity('value') ?? 0n,
        gas: null,
        gasUsed: null,
        input: null,
        output: null,
        ...common,
      });
    } else if (type === 'CREATE' || type === 'CREATE2') {
      records.push({
        type: type === 'CREATE2' ? 'create2' : 'create',
        callType: null,
        from: fields.address('from'),
        to: null,
        createdContract: error === null ? fields.optionalAddress('to') : null,
        value: fields.optionalQuantity('value') ?? 0n,
        gas: fields.quantity('gas'),
        gasUsed: hasResult ? fields.quantity('gasUsed') : null,
        input: fields.data('input'),
        output: hasResult ? (fields.optionalData('output') ?? '0x') : null,
        ...common,
      });
    } else {
      records.push({
        type: 'call',
        callType: readCallType(type, `${path}.type`, complain),
        from: fields.address('from'),
        to: fields.address('to'),
        createdContract: null,
        value: fields.optionalQuantity('value') ?? 0n,
        gas: fields.quantity('gas'),
        gasUsed: hasResult ? fields.quantity('gasUsed') : null,
        input: fields.data('input'),
        output: hasResult ? (fields.optionalData('output') ?? '0x') : null,
        ...common,
      });
    }
    const calls = fields.optionalList('calls') ?? [];
    for (const [i, child] of calls.entries()) visit(child, `${path}.calls[${i}]`, [...traceAddress, i], fields.optionalAddress('to'));
  };
  visit(root, '', [], null);
  return records;
}
