import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { flattenCallFrame } from '../../src/chain/call-tracer.js';
import { complainAbout } from '../../src/chain/node-fields.js';
import { decodeParityTraces } from '../../src/chain/parity-traces.js';
import type { BlockTraces, Hex } from '../../src/model.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { writeBlockTraces } from '../../src/store/write-traces.js';
import { type TestDatabase, bytea, createTestDatabase } from '../support/database.js';
import { bundleFor, recordedCallTracerBlock, recordedParityBlocks } from '../support/trace-fixtures.js';
import { type RunningApi, startApi } from './http.js';

const complain = complainAbout('fixture');
const callTracerBlock = recordedCallTracerBlock();
const callTracerHash = `0x${'24'.repeat(32)}` as Hex;

// Mainnet block 1,000,000 as trace_block answers it, with the miner's reward trace.
const rewardedBlock = (() => {
  const traces: any[] = JSON.parse(
    readFileSync(new URL('../fixtures/ethereum-etl/block_with_subtraces/web3_response.trace_block_0xf4240.json', import.meta.url), 'utf8'),
  ).result;
  const reward = traces.find((t) => t.type === 'reward');
  const tops = traces.filter((t) => t.type !== 'reward' && t.traceAddress.length === 0);
  return {
    number: BigInt(traces[0].blockNumber),
    hash: traces[0].blockHash as Hex,
    author: reward.action.author as Hex,
    minted: BigInt(reward.action.value),
    traces,
    transactions: tops.map((t) => ({ hash: t.transactionHash as Hex, input: t.action.input as Hex })),
  };
})();
let rewardedFees: bigint;

let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createTestDatabase();
  const traces: BlockTraces[] = [];
  for (const { number, traces: recorded } of recordedParityBlocks) {
    const blockHash = recorded[0].blockHash as Hex;
    const tops = recorded.filter((t) => t.type !== 'reward' && t.traceAddress.length === 0);
    const transactions = tops.map((t) => ({ hash: t.transactionHash, input: t.action.input ?? t.action.init }));
    await writeBlockBundles(db.pool, [bundleFor(number, blockHash, transactions)]);
    traces.push({ blockHash, blockNumber: number, ...decodeParityTraces(recorded, blockHash, complain) });
  }
  const { number, results } = callTracerBlock;
  await writeBlockBundles(db.pool, [
    bundleFor(
      number,
      callTracerHash,
      results.map((r) => ({ hash: r.txHash, input: r.result.input })),
    ),
  ]);
  traces.push({
    blockHash: callTracerHash,
    blockNumber: number,
    internalTransactions: results.flatMap((r, i) => flattenCallFrame(r.result, i, r.txHash, complain)),
    rewards: [],
  });
  const rewarded = bundleFor(rewardedBlock.number, rewardedBlock.hash, rewardedBlock.transactions);
  rewarded.block.miner = rewardedBlock.author;
  await writeBlockBundles(db.pool, [rewarded]);
  rewardedFees = rewarded.block.transactionFees;
  traces.push({
    blockHash: rewardedBlock.hash,
    blockNumber: rewardedBlock.number,
    ...decodeParityTraces(rewardedBlock.traces, rewardedBlock.hash, complain),
  });
  assert.equal(await writeBlockTraces(db.pool, traces), 4);
  assert.equal(await writeBlockTraces(db.pool, traces), 0, 'a traced block is not written twice');
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

test('E6 serves the recorded trace_block frames of each transaction as recorded (Merge block, block 17,073,191)', async () => {
  for (const { number, traces } of recordedParityBlocks) {
    const byTransaction = new Map<string, any[]>();
    for (const t of traces.filter((t) => t.type !== 'reward'))
      byTransaction.set(t.transactionHash, [...(byTransaction.get(t.transactionHash) ?? []), t]);
    assert.ok(byTransaction.size > 50, `block ${number}: ${byTransaction.size} traced transactions`);
    for (const [hash, recorded] of byTransaction) {
      const { status, body } = await api.get(`/api/v2/transactions/${hash}/raw-trace`);
      assert.equal(status, 200);
      // The recorded entries less the members the spec does not list (transactionHash is Blockscout's own).
      const expected = recorded.map(({ blockHash, blockNumber, transactionPosition, ...entry }) => entry);
      assert.deepEqual(body, expected, `transaction ${hash}`);
    }
  }
  const kinds = new Set(recordedParityBlocks.flatMap((b) => b.traces.map((t) => t.type)));
  assert.ok(kinds.has('create') && kinds.has('suicide'), `trace types: ${[...kinds].join(', ')}`);
});

/** The callTracer tree in depth-first order, each frame with the path that leads to it. */
function* walk(frame: any, path: number[] = []): Generator<{ frame: any; path: number[] }> {
  yield { frame, path };
  for (const [i, child] of (frame.calls ?? []).entries()) yield* walk(child, [...path, i]);
}

test('E6 serves a callTracer block (24,298,763, 361 transactions) in the Parity shape', async () => {
  assert.equal(callTracerBlock.results.length, 361);
  for (const { txHash, result } of callTracerBlock.results) {
    const { status, body } = await api.get(`/api/v2/transactions/${txHash}/raw-trace`);
    assert.equal(status, 200);
    const frames = [...walk(result)];
    assert.equal(body.length, frames.length);
    frames.forEach(({ frame, path }, i) => {
      const entry = body[i];
      const type = String(frame.type).toLowerCase();
      assert.deepEqual(entry.traceAddress, path);
      assert.equal(entry.subtraces, frame.calls?.length ?? 0);
      assert.equal(entry.transactionHash, txHash);
      assert.deepEqual(
        Object.keys(entry).filter((key) => key.startsWith('block') || key === 'transactionPosition'),
        [],
      );
      assert.equal(entry.error, frame.error);
      if (type === 'selfdestruct') {
        assert.deepEqual([entry.type, entry.action.address, entry.action.refundAddress], ['suicide', frame.from, frame.to]);
      } else if (type.startsWith('create')) {
        assert.deepEqual(
          [entry.type, entry.action.creationMethod, entry.action.from, entry.action.init, entry.action.gas],
          ['create', type, frame.from, frame.input, frame.gas],
        );
      } else {
        assert.deepEqual(
          [entry.type, entry.action.callType, entry.action.from, entry.action.to, entry.action.input, entry.action.gas],
          ['call', type, frame.from, frame.to, frame.input, frame.gas],
        );
        if (entry.result !== null) assert.deepEqual(entry.result, { gasUsed: frame.gasUsed, output: frame.output ?? '0x' });
      }
    });
  }
});

test('the top-level frame gives each transaction its error and revert data, deeper frames has_error_in_internal_transactions', async () => {
  const block = recordedParityBlocks[1]!;
  const { rows } = await db.pool.query<{ hash: Buffer; error: string | null; revert_reason: Buffer | null; has_error: boolean }>(
    `SELECT hash, error, revert_reason, coalesce(has_error_in_internal_transactions, false) AS has_error FROM transactions
     WHERE block_hash = $1 ORDER BY index`,
    [bytea(block.traces[0].blockHash)],
  );
  const frames = block.traces.filter((t) => t.type !== 'reward');
  const expected = rows.map((row) => {
    const hash = `0x${row.hash.toString('hex')}`;
    const own = frames.filter((t) => t.transactionHash === hash);
    const top = own.find((t) => t.traceAddress.length === 0);
    return {
      error: top.error ?? null,
      revert_reason: top.error !== undefined && top.result && top.result.output !== '0x' ? top.result.output : null,
      has_error: own.some((t) => t.traceAddress.length > 0 && t.error !== undefined),
    };
  });
  const stored = rows.map((row) => ({
    error: row.error,
    revert_reason: row.revert_reason === null ? null : `0x${row.revert_reason.toString('hex')}`,
    has_error: row.has_error,
  }));
  assert.deepEqual(stored, expected);
  assert.ok(
    expected.some((e) => e.error !== null) && expected.some((e) => e.has_error),
    `${expected.filter((e) => e.error !== null).length} failed transactions, ${expected.filter((e) => e.has_error).length} with a failed internal call`,
  );
});

test("a reward trace is the block reward E5 shows, with the block's transaction fees for its miner", async () => {
  const { status, body } = await api.get(`/api/v2/addresses/${rewardedBlock.author}/blocks-validated`);
  assert.equal(status, 200);
  assert.deepEqual(
    body.items.map((b: any) => [b.height, b.rewards]),
    [[Number(rewardedBlock.number), [{ reward: (rewardedBlock.minted + rewardedFees).toString(), type: 'Miner Reward' }]]],
  );
});
