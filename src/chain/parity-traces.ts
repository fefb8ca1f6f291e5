import type { BlockRewardRecord, BlockRewardType, Hex, InternalTransactionRecord } from '../model.js';
import { type Complain, nodeFields } from './node-fields.js';
import { readCallType, readError, readObject } from './trace-fields.js';

export interface DecodedTraces {
  internalTransactions: InternalTransactionRecord[];
  rewards: BlockRewardRecord[];
}

const rewardTypes: Record<string, BlockRewardType> = { block: 'validator', uncle: 'uncle', emissionFunds: 'emission_funds' };

/**
 * Decodes Parity-style traces (`trace_block`, `trace_transaction`): frames in depth-first order,
 * grouped by transaction; reward frames become block rewards. `blockHash` is checked on every frame,
 * so that traces of a block that replaced ours are never taken for its own.
 */
export function decodeParityTraces(traces: unknown, blockHash: Hex, complain: Complain): DecodedTraces {
  if (!Array.isArray(traces)) complain('', 'is not a list of traces');
  const decoded: DecodedTraces = { internalTransactions: [], rewards: [] };
  const nextIndex = new Map<number, number>();
  traces.forEach((trace: unknown, i) => {
    const path = `[${i}]`;
    const frame = readObject(trace, path, complain);
    const fields = nodeFields<{ blockHash: string; transactionHash: string; error: string; result: object }>(frame, path, complain);
    // A frame that succeeded has no error member: one set to null was damaged on the way.
    fields.refuseNull('error');
    if (fields.hash('blockHash') !== blockHash) complain(`${path}.blockHash`, `is not the block traced (${blockHash})`);
    const action = readObject(frame.action, `${path}.action`, complain);
    const act = nodeFields<Record<string, unknown>>(action, `${path}.action`, complain);
    act.refuseNull('creationMethod');
    if (frame.type === 'reward') {
      const type = rewardTypes[String(action.rewardType)];
      if (type === undefined) complain(`${path}.action.rewardType`, `is not a reward type (${JSON.stringify(action.rewardType)})`);
      decoded.rewards.push({ address: act.address('author'), type, reward: act.quantity('value') });
      return;
    }
    const transactionIndex = frame.transactionPosition;
    if (typeof transactionIndex !== 'number' || !Number.isInteger(transactionIndex) || transactionIndex < 0) {
      complain(`${path}.transactionPosition`, 'is not a transaction index');
    }
    const traceAddress = frame.traceAddress;
    if (!Array.isArray(traceAddress) || !traceAddress.every((n) => Number.isInteger(n) && n >= 0)) {
      complain(`${path}.traceAddress`, 'is not a list of child positions');
    }
    const index = nextIndex.get(transactionIndex) ?? 0;
    nextIndex.set(transactionIndex, index + 1);
    const result = frame.result === null || frame.result === undefined ? null : readObject(frame.result, `${path}.result`, complain);
    const res = result === null ? null : nodeFields<Record<string, unknown>>(result, `${path}.result`, complain);
    const error = readError(frame.error, `${path}.error`, complain);
    // A call or creation has a result unless it failed, and one that reverted keeps its result (the
    // revert data); a selfdestruct has neither.
    if (res === null && (error === null || error === 'Reverted') && (frame.type === 'call' || frame.type === 'create')) {
      complain(`${path}.result`, error === null ? 'is missing, and the frame has no error' : 'is missing from a reverted frame');
    }
    const common = {
      transactionIndex,
      transactionHash: fields.hash('transactionHash'),
      index,
      traceAddress: traceAddress as number[],
      error,
      gasUsed: res?.quantity('gasUsed') ?? null,
    };
    switch (frame.type) {
      case 'call':
        decoded.internalTransactions.push({
          type: 'call',
          callType: readCallType(action.callType, `${path}.action.callType`, complain),
          from: act.address('from'),
          to: act.address('to'),
          createdContract: null,
          value: act.quantity('value'),
          gas: act.quantity('gas'),
          input: act.data('input'),
          output: res?.data('output') ?? null,
          ...common,
        });
        return;
      case 'create':
        decoded.internalTransactions.push({
          type: action.creationMethod === 'create2' ? 'create2' : 'create',
          callType: null,
          from: act.address('from'),
          to: null,
          createdContract: res?.address('address') ?? null,
          value: act.quantity('value'),
          gas: act.quantity('gas'),
          input: act.data('init'),
          output: res?.data('code') ?? null,
          ...common,
        });
        return;
      case 'suicide':
      case 'selfdestruct':
        decoded.internalTransactions.push({
          type: 'selfdestruct',
          callType: null,
          from: act.address('address'),
          to: act.address('refundAddress'),
          createdContract: null,
          value: act.quantity('balance'),
          gas: null,
          input: null,
          output: null,
          ...common,
        });
        return;
      default:
        complain(`${path}.type`, `is not a trace type (${JSON.stringify(frame.type)})`);
    }
  });
  return decoded;
}
