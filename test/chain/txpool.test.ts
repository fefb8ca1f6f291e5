import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InvalidNodeResponseError } from '../../src/chain/errors.js';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { decodeTxpoolContent, fetchTxpool } from '../../src/chain/txpool.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import type { Hex, PoolTransaction } from '../../src/model.js';
import { startReplayNode } from '../support/replay-node.js';

/** A transaction as eth_getTransactionByHash reports it. */
interface NodeTransaction {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  nonce: Hex;
  type: Hex;
  value: Hex;
  gas: Hex;
  gasPrice?: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
  input: Hex;
  blockNumber: Hex | null;
}

let anvil: AnvilNode;
let client: RpcClient;
let accounts: Hex[];
/** What anvil answered to txpool_content, with the hashes it holds. */
let answer: { pending: Record<string, Record<string, unknown>>; queued: Record<string, Record<string, unknown>> };
const pendingHashes: Hex[] = [];
let queuedHash: Hex;

const gwei = (n: number) => `0x${(BigInt(n) * 1_000_000_000n).toString(16)}`;

before(async () => {
  anvil = await startAnvil();
  client = createRpcClient({ url: anvil.rpcUrl });
  accounts = await client.request<Hex[]>('eth_accounts', []);
  await client.request('evm_setAutomine', [false]);
  const [a, b, c, d] = accounts as [Hex, Hex, Hex, Hex];
  const send = (transaction: Record<string, unknown>) => client.request<Hex>('eth_sendTransaction', [transaction]);
  pendingHashes.push(
    await send({ from: a, to: b, value: '0x1', gas: '0x5208', gasPrice: gwei(2) }),
    await send({ from: a, to: c, value: '0x2', gas: '0x7530', gasPrice: gwei(2), accessList: [{ address: c, storageKeys: [] }] }),
    await send({ from: b, to: null, value: '0x0', gas: '0x30000', maxFeePerGas: gwei(3), maxPriorityFeePerGas: gwei(1), data: '0x6000' }),
  );
  // A nonce ahead of the sender's next one waits in the queued section.
  queuedHash = await send({
    from: c,
    to: d,
    value: '0x3',
    gas: '0x5208',
    nonce: '0x5',
    maxFeePerGas: gwei(3),
    maxPriorityFeePerGas: gwei(1),
  });
  answer = await client.request('txpool_content', []);
});

after(async () => {
  await anvil?.stop();
});

/** The entry of anvil's txpool_content answer with this hash. */
function poolEntry(hash: Hex): Record<string, unknown> {
  const entries = [...Object.values(answer.pending), ...Object.values(answer.queued)].flatMap((byNonce) => Object.values(byNonce));
  return entries.find((entry) => (entry as { hash: string }).hash === hash) as Record<string, unknown>;
}

const optional = (value: Hex | undefined) => (value === undefined ? null : BigInt(value));

/**
 * What eth_getTransactionByHash says, except the gas price of an EIP-1559 transaction: there anvil
 * reports the price at the current base fee, and its pool the max fee per gas.
 */
function expectedFrom(node: NodeTransaction): PoolTransaction {
  const gasPrice = Number(node.type) === 2 ? (poolEntry(node.hash).gasPrice as Hex) : node.gasPrice;
  return {
    hash: node.hash,
    from: node.from,
    to: node.to,
    nonce: BigInt(node.nonce),
    type: Number(node.type),
    value: BigInt(node.value),
    gasLimit: BigInt(node.gas),
    gasPrice: optional(gasPrice),
    maxFeePerGas: optional(node.maxFeePerGas),
    maxPriorityFeePerGas: optional(node.maxPriorityFeePerGas),
    input: node.input,
  };
}

test("anvil's pool: pending and queued transactions of types 0, 1 and 2, each as the node reports it by hash", async () => {
  const content = await fetchTxpool(client);
  assert.ok(content !== null);
  assert.deepEqual(content.malformed, []);
  assert.deepEqual(content.transactions.map((t) => t.hash).sort(), [...pendingHashes, queuedHash].sort());
  for (const decoded of content.transactions) {
    const node = await client.request<NodeTransaction>('eth_getTransactionByHash', [decoded.hash]);
    assert.equal(node.blockNumber, null);
    assert.deepEqual(decoded, expectedFrom(node));
  }
  const byHash = new Map(content.transactions.map((t) => [t.hash, t]));
  assert.deepEqual(
    pendingHashes.map((hash) => byHash.get(hash)?.type),
    [0, 1, 2],
  );
  assert.equal(byHash.get(pendingHashes[2]!)?.to, null, 'a contract creation has no recipient');
  assert.equal(byHash.get(queuedHash)?.nonce, 5n);
  assert.equal(byHash.get(queuedHash)?.gasPrice, 3_000_000_000n);
});

test('a malformed entry is left out and named; the rest of the pool is kept', () => {
  const [sender, byNonce] = Object.entries(answer.pending)[0] as [string, Record<string, Record<string, unknown>>];
  const [nonce, entry] = Object.entries(byNonce)[0] as [string, Record<string, unknown>];
  const otherSender = Object.keys(answer.pending).find((address) => address !== sender) as string;
  const tampered = {
    ...answer,
    pending: {
      ...answer.pending,
      [sender]: { ...byNonce, [nonce]: { ...entry, gas: 'lots' } },
      // Filed under a sender that did not sign it.
      [accounts[9]!]: { '0': { ...entry, hash: `0x${'ab'.repeat(32)}`, nonce: '0x0' } },
      // Not a map of nonces at all.
      [accounts[8]!]: 'nothing',
    },
  };
  const { transactions, malformed } = decodeTxpoolContent(tampered);
  assert.deepEqual(transactions.map((t) => t.hash).sort(), [...pendingHashes, queuedHash].filter((hash) => hash !== entry.hash).sort());
  assert.notEqual(otherSender, undefined);
  assert.deepEqual(
    malformed.map((error) => error.message),
    [
      `invalid node response for txpool_content: pending.${sender}.${nonce}.gas is not a hex quantity ("lots")`,
      `invalid node response for txpool_content: pending.${accounts[9]}.0.from is ${sender}, not the sender it is listed under`,
      `invalid node response for txpool_content: pending.${accounts[8]} is not an object ("nothing")`,
    ],
  );
});

test('an answer that is not a pool is an InvalidNodeResponseError; a missing queued section is an empty one', () => {
  assert.throws(() => decodeTxpoolContent(null), InvalidNodeResponseError);
  assert.throws(() => decodeTxpoolContent({ pending: [] }), /pending is not an object/);
  assert.deepEqual(decodeTxpoolContent({ pending: {} }), { transactions: [], malformed: [] });
});

test('a node without txpool_content answers null', async (t) => {
  const node = await startReplayNode([]);
  t.after(() => node.stop());
  assert.equal(await fetchTxpool(createRpcClient({ url: node.url })), null);
  assert.deepEqual(node.requests, [{ method: 'txpool_content', params: [] }]);
});
