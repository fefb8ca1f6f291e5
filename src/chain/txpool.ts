import { type PoolTransaction, hexQuantity } from '../model.js';
import { InvalidNodeResponseError, RpcError } from './errors.js';
import { complainAbout, nodeFields, type Complain } from './node-fields.js';
import type { RpcClient } from './rpc.js';
import type { RpcTransaction } from './rpc-types.js';

export interface TxpoolContent {
  /** The pending and the queued transactions, in the order the node listed them. */
  transactions: PoolTransaction[];
  /** One error per entry left out because it was malformed. */
  malformed: InvalidNodeResponseError[];
}

const METHOD_NOT_FOUND = -32601;
const SECTIONS = ['pending', 'queued'] as const;

/**
 * The node's pool (`txpool_content`, pending and queued), or null when the node has no such method.
 * An answer that is not a pool at all is an InvalidNodeResponseError; a malformed entry is only left out.
 */
export async function fetchTxpool(client: RpcClient): Promise<TxpoolContent | null> {
  let answer: unknown;
  try {
    answer = await client.request<unknown>('txpool_content', []);
  } catch (error) {
    if (error instanceof RpcError && error.code === METHOD_NOT_FOUND) return null;
    throw error;
  }
  return decodeTxpoolContent(answer);
}

/** Checks a `txpool_content` answer: `{pending, queued}`, each `{sender: {nonce: transaction}}`. */
export function decodeTxpoolContent(answer: unknown): TxpoolContent {
  const complain = complainAbout('txpool_content');
  const content = objectAt(answer, '', complain);
  const transactions: PoolTransaction[] = [];
  const malformed: InvalidNodeResponseError[] = [];
  /** Runs `decode`, setting a malformed part aside instead of failing the whole pool. */
  const unlessMalformed = <T>(decode: () => T): T | null => {
    try {
      return decode();
    } catch (error) {
      if (!(error instanceof InvalidNodeResponseError)) throw error;
      malformed.push(error);
      return null;
    }
  };
  for (const section of SECTIONS) {
    // A node with nothing queued may leave the section out.
    if (content[section] === undefined || content[section] === null) continue;
    for (const [sender, byNonce] of Object.entries(objectAt(content[section], section, complain))) {
      const senderPath = `${section}.${sender}`;
      const entries = unlessMalformed(() => Object.entries(objectAt(byNonce, senderPath, complain))) ?? [];
      for (const [nonce, transaction] of entries) {
        const decoded = unlessMalformed(() => decodePoolTransaction(transaction, `${senderPath}.${nonce}`, { sender, nonce }, complain));
        if (decoded !== null) transactions.push(decoded);
      }
    }
  }
  return { transactions, malformed };
}

function decodePoolTransaction(
  transaction: unknown,
  path: string,
  listedAs: { sender: string; nonce: string },
  complain: Complain,
): PoolTransaction {
  const fields = nodeFields<RpcTransaction>(transaction, path, complain);
  const from = fields.address('from');
  const nonce = fields.quantity('nonce');
  // The pool is keyed by sender and nonce; an entry filed under another one is not to be trusted.
  if (from !== listedAs.sender.toLowerCase()) complain(`${path}.from`, `is ${from}, not the sender it is listed under`);
  if (!isNonceKey(listedAs.nonce, nonce)) complain(`${path}.nonce`, `is ${nonce}, not the nonce it is listed under`);
  return {
    hash: fields.hash('hash'),
    from,
    to: fields.optionalAddress('to'),
    nonce,
    type: fields.optionalSmallNumber('type'),
    value: fields.quantity('value'),
    gasLimit: fields.quantity('gas'),
    gasPrice: fields.optionalQuantity('gasPrice'),
    maxFeePerGas: fields.optionalQuantity('maxFeePerGas'),
    maxPriorityFeePerGas: fields.optionalQuantity('maxPriorityFeePerGas'),
    input: fields.data('input'),
  };
}

/** Nodes key the pool by decimal nonce; a hex key is read too. */
const isNonceKey = (key: string, nonce: bigint): boolean => key === nonce.toString() || key.toLowerCase() === hexQuantity(nonce);

function objectAt(value: unknown, path: string, complain: Complain): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    complain(path, `is not an object (${JSON.stringify(value)?.slice(0, 80) ?? 'missing'})`);
  }
  return value as Record<string, unknown>;
}
