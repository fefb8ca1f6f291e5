import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { flattenCallFrame } from '../../src/chain/call-tracer.js';
import { complainAbout } from '../../src/chain/node-fields.js';
import { decodeParityTraces } from '../../src/chain/parity-traces.js';
import type { InternalTransactionRecord } from '../../src/model.js';

const complain = complainAbout('fixture');
const etlDir = new URL('../fixtures/ethereum-etl/', import.meta.url);
const readJson = (url: URL): any => JSON.parse(readFileSync(url, 'utf8'));

/** The recorded pairs: the same mainnet block as trace_block and as debug_traceBlockByNumber with callTracer. */
const pairs = ['block_with_create', 'block_with_error', 'block_with_subtraces', 'block_with_suicide'].map((name) => {
  const files = readdirSync(new URL(`${name}/`, etlDir));
  const read = (prefix: string) => readJson(new URL(`${name}/${files.find((f) => f.startsWith(prefix))!}`, etlDir)).result;
  return {
    name,
    parity: read('web3_response.trace_block_') as any[],
    callTracer: read('web3_response.debug_traceBlockByNumber_') as any[],
  };
});

/**
 * What both formats say alike. Errors are compared as present or not (nodes word them differently);
 * the top-level frame's gas not at all (geth counts the intrinsic gas in it, Parity does not); a
 * callcode's `to` and output neither (Parity names the calling contract, geth the code's address), nor a
 * selfdestruct's refund address and balance (the 2016 geth that recorded these wrote its type alone).
 */
function comparable(frame: InternalTransactionRecord) {
  const top = frame.index === 0;
  const callcode = frame.callType === 'callcode';
  const selfdestruct = frame.type === 'selfdestruct';
  return {
    ...frame,
    error: frame.error !== null,
    gas: top ? null : frame.gas,
    gasUsed: top ? null : frame.gasUsed,
    to: callcode || selfdestruct ? null : frame.to,
    value: selfdestruct ? null : frame.value,
    output: callcode ? null : frame.output,
  };
}

test('the ethereum-etl blocks recorded in both formats normalise to the same internal transactions', () => {
  for (const { name, parity, callTracer } of pairs) {
    const fromParity = decodeParityTraces(parity, parity[0].blockHash, complain).internalTransactions;
    const hashes = new Map(fromParity.map((t) => [t.transactionIndex, t.transactionHash]));
    const fromCallTracer = callTracer.flatMap((entry, i) => flattenCallFrame(entry.result, i, hashes.get(i)!, complain));
    assert.ok(fromParity.length > 1, `${name}: ${fromParity.length} internal transactions`);
    assert.deepEqual(fromCallTracer.map(comparable), fromParity.map(comparable), name);
  }
});
