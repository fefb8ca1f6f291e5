import { type Hex, hexQuantity } from '../model.js';
import { BlockNotFoundError } from './errors.js';
import { complainAbout, nodeFields } from './node-fields.js';
import type { RpcClient } from './rpc.js';

export interface BlockHeader {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
}

/** The hash and parent hash of the node's block at a height, without its transactions. */
export async function fetchBlockHeader(client: RpcClient, number: bigint): Promise<BlockHeader> {
  const block = await client.request<unknown>('eth_getBlockByNumber', [hexQuantity(number), false]);
  if (block === null || block === undefined) throw new BlockNotFoundError(number, 'eth_getBlockByNumber');
  const fields = nodeFields<{ hash: string; parentHash: string }>(block, '', complainAbout(`block ${number}`));
  return { number, hash: fields.hash('hash'), parentHash: fields.hash('parentHash') };
}
