import { readFileSync } from 'node:fs';
import type { RawBlockData, RpcBlock, RpcReceipt, RpcTransaction } from '../../src/chain/rpc-types.js';

/**
 * Blocks of the execution-apis conformance chain (test/fixtures/execution-apis): a synthetic chain
 * that runs every fork up to Prague.
 */

const VECTORS = new URL('../fixtures/execution-apis/tests/', import.meta.url);

/** Block 1: before London (no base fee) and Byzantium (no receipt status); four contract creations. */
export function loadConformanceBlock1(): RawBlockData {
  return blockWithReceipts('eth_getBlockByHash/get-block-by-hash.io', 'eth_getBlockReceipts/get-block-receipts-n.io');
}

/** Block 0x36, the chain's head: Prague, four legacy transactions, three contract creations and logs. */
export function loadConformanceHeadBlock(): RawBlockData {
  return blockWithReceipts('eth_getBlockByNumber/get-latest.io', 'eth_getBlockReceipts/get-block-receipts-latest.io');
}

/**
 * Block 0x2a (Cancun) reduced to its blob (type-3) transaction. The vectors record that block with
 * transaction hashes only, and only this one of its four transactions and receipts in full.
 */
export function loadConformanceBlobTransactionBlock(): RawBlockData {
  return blockReducedTo(
    'eth_getBlockByNumber/get-block-cancun-fork.io',
    'eth_getTransactionByHash/get-blob-tx.io',
    'eth_getTransactionReceipt/get-blob-tx.io',
  );
}

/** Block 0x2d (Prague) reduced to its set-code (type-4) transaction, for the same reason. */
export function loadConformanceSetCodeTransactionBlock(): RawBlockData {
  return blockReducedTo(
    'eth_getBlockByNumber/get-block-prague-fork.io',
    'eth_getTransactionByHash/get-setcode-tx.io',
    'eth_getTransactionReceipt/get-setcode-tx.io',
  );
}

function blockWithReceipts(blockFile: string, receiptsFile: string): RawBlockData {
  const block = recordedResult(blockFile) as RpcBlock;
  return { number: BigInt(block.number), block, receipts: recordedResult(receiptsFile) as RpcReceipt[] };
}

function blockReducedTo(blockFile: string, transactionFile: string, receiptFile: string): RawBlockData {
  const block = recordedResult(blockFile) as RpcBlock;
  const transaction = recordedResult(transactionFile) as RpcTransaction;
  return {
    number: BigInt(block.number),
    block: { ...block, transactions: [transaction] },
    receipts: [recordedResult(receiptFile) as RpcReceipt],
  };
}

/** The result of the one exchange a .io vector records (`>> request` then `<< response` lines). */
function recordedResult(file: string): unknown {
  const text = readFileSync(new URL(file, VECTORS), 'utf8');
  const response = text.split('\n').find((line) => line.startsWith('<< '));
  if (response === undefined) throw new Error(`${file} records no response`);
  return (JSON.parse(response.slice(3)) as { result: unknown }).result;
}
