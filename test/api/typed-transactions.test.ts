import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createWalletClient, getAddress, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { decodeBlock } from '../../src/chain/decode-block.js';
import { createRpcClient } from '../../src/chain/rpc.js';
import type { RpcReceipt, RpcTransaction } from '../../src/chain/rpc-types.js';
import { type AnvilNode, startAnvil } from '../../src/demo/anvil.js';
import { startIndexer } from '../../src/indexer/blocks/indexer.js';
import { recordChainFact } from '../../src/store/chain-facts.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { loadConformanceBlobTransactionBlock } from '../support/execution-apis-fixtures.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { type RunningApi, startApi } from './http.js';

const blobFields = ['blob_gas_price', 'blob_gas_used', 'blob_versioned_hashes', 'burnt_blob_fee', 'max_fee_per_blob_gas'];

// anvil's well-known development keys: the sender, and two accounts that delegate their code.
const sender = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const authority = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86ae7b69e7ac5cfb6ed7fc7d7c3d');
const otherAuthority = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9e8e4f8a7eb5a');
const delegate = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('a set-code (type-4) transaction on anvil (Prague)', () => {
  let node: AnvilNode;
  let db: TestDatabase;
  let api: RunningApi;
  let hash: Hex;
  let nodeTransaction: Omit<RpcTransaction, 'authorizationList'> & { authorizationList: Record<string, string>[] };

  before(async () => {
    node = await startAnvil({ hardfork: 'prague' });
    const wallet = createWalletClient({ chain: anvilChain, transport: http(node.rpcUrl) });
    const publicClient = createPublicClient({ chain: anvilChain, transport: http(node.rpcUrl) });
    const authorizationList = [
      await authority.signAuthorization({ address: delegate, chainId: anvilChain.id, nonce: 0 }),
      // Chain id 0 is valid on every chain; another chain's id makes the authorization invalid here.
      await otherAuthority.signAuthorization({ address: delegate, chainId: 0, nonce: 0 }),
      await otherAuthority.signAuthorization({ address: delegate, chainId: 999, nonce: 1 }),
    ];
    hash = await wallet.sendTransaction({ account: sender, to: authority.address, authorizationList, data: '0x' });
    await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
    const client = createRpcClient({ url: node.rpcUrl });
    nodeTransaction = await client.request('eth_getTransactionByHash', [hash]);
    db = await createTestDatabase();
    await recordChainFact(db.pool, 'chain_id', String(anvilChain.id));
    const head = BigInt(await client.request<string>('eth_blockNumber', []));
    await startIndexer(await testIndexerOptions(db, client, head)).done;
    api = await startApi(db.pool);
  });
  after(async () => {
    await api?.close();
    await db?.drop();
    await node?.stop();
  });

  test("authorization_list is the node's list, in order, with each signer recovered", async () => {
    const { status, body } = await api.get(`/api/v2/transactions/${hash}`);
    assert.equal(status, 200);
    assert.equal(body.type, 4);
    const signers = [authority.address, otherAuthority.address, otherAuthority.address];
    assert.deepEqual(
      body.authorization_list,
      nodeTransaction.authorizationList.map((entry, i) => ({
        address_hash: getAddress(entry.address!),
        authority: signers[i],
        chain_id: Number(BigInt(entry.chainId!)),
        nonce: BigInt(entry.nonce!).toString(),
        r: BigInt(entry.r!).toString(),
        s: BigInt(entry.s!).toString(),
        status: i === 2 ? 'invalid_chain_id' : null,
        v: Number(BigInt(entry.yParity!)),
      })),
    );
    for (const field of blobFields) assert.equal(field in body, false, `${field} belongs to blob transactions`);
  });

  test('a retraction removes the authorizations of its blocks', async () => {
    const count = async () => Number((await db.pool.query('SELECT count(*) AS n FROM transaction_authorizations')).rows[0].n);
    assert.equal(await count(), 3);
    await retractBlocksFrom(db.pool, BigInt(nodeTransaction.blockNumber));
    assert.equal(await count(), 0);
    assert.equal((await api.get(`/api/v2/transactions/${hash}`)).status, 404);
  });
});

describe('a blob (type-3) transaction recorded from the execution-apis conformance chain', () => {
  const raw = loadConformanceBlobTransactionBlock();
  const transaction = raw.block.transactions[0] as RpcTransaction;
  const receipt = raw.receipts[0] as RpcReceipt;
  let db: TestDatabase;
  let api: RunningApi;

  before(async () => {
    db = await createTestDatabase();
    await writeBlockBundles(db.pool, [decodeBlock(raw)]);
    api = await startApi(db.pool);
  });
  after(async () => {
    await api?.close();
    await db?.drop();
  });

  test("the detail serves the blob fields of the transaction and of its receipt, the node's own values", async () => {
    const { status, body } = await api.get(`/api/v2/transactions/${transaction.hash}`);
    assert.equal(status, 200);
    assert.equal(body.type, 3);
    const blobGasUsed = BigInt(receipt.blobGasUsed!);
    const blobGasPrice = BigInt(receipt.blobGasPrice!);
    assert.deepEqual(Object.fromEntries(blobFields.map((field) => [field, body[field]])), {
      blob_gas_price: blobGasPrice.toString(),
      blob_gas_used: blobGasUsed.toString(),
      blob_versioned_hashes: transaction.blobVersionedHashes,
      burnt_blob_fee: (blobGasUsed * blobGasPrice).toString(),
      max_fee_per_blob_gas: BigInt(transaction.maxFeePerBlobGas!).toString(),
    });
    assert.deepEqual(body.authorization_list, []);
  });
});
