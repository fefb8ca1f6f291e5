import { hexQuantity } from '../model.js';
import type { NodeCapabilities } from './capabilities.js';
import { BlockNotFoundError } from './errors.js';
import { complainAbout, nodeFields, readQuantity } from './node-fields.js';
import type { RpcCall, RpcClient } from './rpc.js';
import type { RawBlockData, RpcBlock, RpcReceipt, RpcTransaction, RpcUncle } from './rpc-types.js';

/** The node's latest block number. */
export async function fetchHeadNumber(client: RpcClient): Promise<bigint> {
  return readQuantity(await client.request<unknown>('eth_blockNumber', []), '', complainAbout('eth_blockNumber'));
}

/**
 * Each block with full transactions and its receipts, in the order asked. With
 * `eth_getBlockReceipts` that is one batch for everything; without it, one batch for the blocks and
 * one for all their transactions' receipts. Blocks that list uncles cost one more batch, for all
 * their uncles' headers. A block the node lacks is a BlockNotFoundError.
 */
export async function fetchBlocks(
  client: RpcClient,
  capabilities: Pick<NodeCapabilities, 'blockReceipts'>,
  numbers: readonly bigint[],
): Promise<RawBlockData[]> {
  return withUncles(client, await fetchBlocksAndReceipts(client, capabilities, numbers));
}

async function fetchBlocksAndReceipts(
  client: RpcClient,
  capabilities: Pick<NodeCapabilities, 'blockReceipts'>,
  numbers: readonly bigint[],
): Promise<RawBlockData[]> {
  if (capabilities.blockReceipts) {
    const answers = await client.batch<unknown>(numbers.flatMap((number) => [blockCall(number), blockReceiptsCall(number)]));
    return numbers.map((number, i) => ({
      number,
      block: found(answers[2 * i], number, 'eth_getBlockByNumber') as RpcBlock,
      receipts: found(answers[2 * i + 1], number, 'eth_getBlockReceipts') as RpcReceipt[],
    }));
  }

  const blocks = (await client.batch<unknown>(numbers.map(blockCall))).map(
    (block, i) => found(block, numbers[i] as bigint, 'eth_getBlockByNumber') as RpcBlock,
  );
  const hashes = blocks.map((block, i) => transactionHashes(block, numbers[i] as bigint));
  const receipts = await client.batch<unknown>(hashes.flat().map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })));
  let next = 0;
  return numbers.map((number, i) => {
    const own = receipts.slice(next, next + (hashes[i] as string[]).length);
    next += own.length;
    return {
      number,
      block: blocks[i] as RpcBlock,
      receipts: own.map((receipt) => found(receipt, number, 'eth_getTransactionReceipt') as RpcReceipt),
    };
  });
}

/** Adds the uncle headers of the blocks that list uncles (pre-merge blocks; none since). */
async function withUncles(client: RpcClient, blocks: RawBlockData[]): Promise<RawBlockData[]> {
  const wanted = blocks.map(({ number, block }) => {
    const fields = nodeFields<RpcBlock>(block, '', complainAbout(`block ${number}`));
    return { number, hash: fields.hash('hash'), count: fields.hashList('uncles').length };
  });
  const calls = wanted.flatMap(({ hash, count }) =>
    Array.from({ length: count }, (_, i): RpcCall => ({ method: 'eth_getUncleByBlockHashAndIndex', params: [hash, hexQuantity(i)] })),
  );
  if (calls.length === 0) return blocks;
  const answers = await client.batch<unknown>(calls);
  let next = 0;
  return blocks.map((raw, i) => {
    const { number, count } = wanted[i] as (typeof wanted)[number];
    const own = answers.slice(next, next + count);
    next += count;
    return count === 0
      ? raw
      : Object.assign({}, raw, { uncles: own.map((uncle) => found(uncle, number, 'eth_getUncleByBlockHashAndIndex') as RpcUncle) });
  });
}

function blockCall(number: bigint): RpcCall {
  return { method: 'eth_getBlockByNumber', params: [hexQuantity(number), true] };
}

function blockReceiptsCall(number: bigint): RpcCall {
  return { method: 'eth_getBlockReceipts', params: [hexQuantity(number)] };
}

function found(answer: unknown, number: bigint, method: string): unknown {
  if (answer === null || answer === undefined) throw new BlockNotFoundError(number, method);
  return answer;
}

function transactionHashes(block: RpcBlock, number: bigint): string[] {
  const complain = complainAbout(`block ${number}`);
  return nodeFields<RpcBlock>(block, '', complain)
    .list('transactions')
    .map((transaction, i) => nodeFields<RpcTransaction>(transaction, `transactions[${i}]`, complain).hash('hash'));
}
