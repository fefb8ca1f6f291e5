import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Hex, InternalTransactionRecord, TransactionRecord } from '../../src/model.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { writeBlockTraces } from '../../src/store/write-traces.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';

// Values that CSV could get wrong, COPYed by the indexer's own row encoding and read back.

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db.drop();
});

const beyond64Bits = 2n ** 256n - 1n;
const [bundle] = syntheticChain({ from: 7n, to: 7n, transactionsPerBlock: () => 2 });
const block = bundle!.block;
const [plain, blob] = bundle!.transactions as [TransactionRecord, TransactionRecord];
const blobHashes: Hex[] = [`0x01${'ab'.repeat(31)}`, `0x01${'cd'.repeat(31)}`];
bundle!.transactions = [
  { ...plain, to: null, createdContract: syntheticAddress('created'), value: beyond64Bits, gasPrice: null, status: null, input: '0x' },
  {
    ...blob,
    type: 3,
    maxFeePerBlobGas: 2n ** 70n,
    blobGasUsed: 131_072n,
    blobGasPrice: 1n,
    blobVersionedHashes: blobHashes,
    input: '0x00ff',
  },
];

const errors = [
  'execution reverted: "quoted", with a comma',
  'two\nlines\r\nand a carriage return',
  String.raw`back\slash \x00 \N \.`,
  'Unicode: ünïcødé ✓ 🚀',
  '',
  null,
];

const frame = (index: number, error: string | null, traceAddress: number[]): InternalTransactionRecord => ({
  transactionIndex: 0,
  transactionHash: plain.hash,
  index,
  traceAddress,
  type: index === 0 ? 'create' : 'call',
  callType: index === 0 ? null : 'delegatecall',
  from: syntheticAddress('sender0'),
  to: index === 0 ? null : syntheticAddress('callee'),
  createdContract: index === 0 ? syntheticAddress('created') : null,
  value: index === 1 ? beyond64Bits : 0n,
  gas: index === 2 ? null : 30_000n,
  gasUsed: index === 2 ? null : 21_000n,
  input: index === 3 ? null : `0x${'00'.repeat(index)}`,
  output: index === 4 ? '0x' : null,
  error,
});
const frames = errors.map((error, index) => frame(index, error, index === 0 ? [] : Array.from({ length: index }, (_, i) => i)));

test('transactions: numerics beyond 2^64, NULLs, empty bytea, bytea arrays and timestamps read back equal', async () => {
  await writeBlockBundles(db.pool, [bundle!]);
  const { rows } = await db.pool.query(
    `SELECT value::text, gas_price, status, encode(input, 'hex') AS input, to_address, encode(created_contract, 'hex') AS created,
            max_fee_per_blob_gas::text, blob_versioned_hashes, extract(epoch FROM block_timestamp)::bigint::text AS seconds
       FROM transactions ORDER BY index`,
  );
  assert.deepEqual(rows, [
    {
      value: beyond64Bits.toString(),
      gas_price: null,
      status: null,
      input: '',
      to_address: null,
      created: syntheticAddress('created').slice(2),
      max_fee_per_blob_gas: null,
      blob_versioned_hashes: null,
      seconds: block.timestamp.toString(),
    },
    {
      value: blob.value.toString(),
      gas_price: blob.gasPrice!.toString(),
      status: 1,
      input: '00ff',
      to_address: Buffer.from(blob.to!.slice(2), 'hex'),
      created: null,
      max_fee_per_blob_gas: (2n ** 70n).toString(),
      blob_versioned_hashes: blobHashes.map((h) => Buffer.from(h.slice(2), 'hex')),
      seconds: block.timestamp.toString(),
    },
  ]);
  const stored = (await db.pool.query('SELECT timestamp, uncles FROM blocks WHERE number = 7')).rows[0];
  assert.equal(stored.timestamp.getTime(), Number(block.timestamp) * 1000);
  assert.deepEqual(stored.uncles, []);
});

test('internal transactions: free-text errors, empty string against NULL, arrays and NULL bytea read back equal', async () => {
  assert.equal(
    await writeBlockTraces(db.pool, [{ blockHash: block.hash, blockNumber: block.number, internalTransactions: frames, rewards: [] }]),
    1,
  );
  const { rows } = await db.pool.query(
    `SELECT index, error, trace_address, type, call_type, value::text, gas::text, gas_used::text,
            encode(input, 'hex') AS input, encode(output, 'hex') AS output, to_address IS NULL AS no_to
       FROM internal_transactions ORDER BY index`,
  );
  assert.deepEqual(
    rows,
    frames.map((f) => ({
      index: f.index,
      error: f.error,
      trace_address: f.traceAddress,
      type: f.type,
      call_type: f.callType,
      value: f.value.toString(),
      gas: f.gas?.toString() ?? null,
      gas_used: f.gasUsed?.toString() ?? null,
      // The top frame's input is the transaction's own, not stored twice.
      input: f.index === 0 || f.input === null ? null : f.input.slice(2),
      output: f.output?.slice(2) ?? null,
      no_to: f.to === null,
    })),
  );
});
