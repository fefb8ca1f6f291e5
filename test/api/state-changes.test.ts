import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { createPublicClient, http, parseAbi } from 'viem';
import type { Address } from '../../src/model.js';
import { pastCoinBalancesFromNode } from '../../src/app/past-coin-balances.js';
import type { NodeConnection } from '../../src/app/node.js';
import { type TokenBalanceKey, readLedgerTokenBalancesAt } from '../../src/store/read/state-changes.js';
import { type TestDatabase, bytea, createTestDatabase } from '../support/database.js';
import { type NodeTransfer, type TokenChain, indexTokenChainWithContracts, startTokenChain } from '../support/token-chain.js';
import { type RunningApi, collectList, startApi } from './http.js';

/**
 * State changes checked against the node (anvil keeps every block's state): for every transaction
 * of the scenario, each balance before and after is what eth_getBalance and balanceOf answer at the
 * block below and at the block, and the coin changes add up to the fee burnt.
 */

interface NodeBlock {
  number: string;
  baseFeePerGas?: string;
  transactions: string[];
}

interface StateChangeJson {
  address: { hash: string };
  balance_before: string | null;
  balance_after: string | null;
  change: string | { direction: string; total: { token_id: string | null } }[];
  is_miner: boolean;
  token: { address_hash: string; type: string } | null;
  token_id: string | null;
  type: 'coin' | 'token';
}

const ZERO = '0x0000000000000000000000000000000000000000';
const balanceAbi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function balanceOf(address, uint256) view returns (uint256)',
]);

describe('GET /api/v2/transactions/{hash}/state-changes', () => {
  let chain: TokenChain;
  let db: TestDatabase;
  let withNode: RunningApi;
  let withoutNode: RunningApi;
  let blocks: NodeBlock[];
  let node: ReturnType<typeof createPublicClient>;

  before(async () => {
    chain = await startTokenChain({ archive: true });
    db = await createTestDatabase();
    await indexTokenChainWithContracts(chain, db);
    const nodeConnection = { client: chain.client, errors: new Map() } as unknown as NodeConnection;
    withNode = await startApi(db.pool, { pastCoinBalances: pastCoinBalancesFromNode(nodeConnection, pino({ level: 'silent' })) });
    withoutNode = await startApi(db.pool);
    node = createPublicClient({ transport: http(chain.anvil.rpcUrl) });
    const head = Number(await node.getBlockNumber());
    blocks = [];
    for (let n = 1; n <= head; n++)
      blocks.push(await chain.client.request<NodeBlock>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]));
  });

  after(async () => {
    await withNode?.close();
    await withoutNode?.close();
    await db?.drop();
    await chain?.anvil.stop();
  });

  const balanceAt = async (address: string, block: number) =>
    (await node.getBalance({ address: address as Address, blockNumber: BigInt(block) })).toString();

  async function tokenBalanceAt(change: StateChangeJson, block: number): Promise<string> {
    const call = { address: change.token!.address_hash as Address, abi: balanceAbi, blockNumber: BigInt(block) } as const;
    const holder = change.address.hash as Address;
    const value =
      change.token_id === null
        ? await node.readContract({ ...call, functionName: 'balanceOf', args: [holder] })
        : await node.readContract({ ...call, functionName: 'balanceOf', args: [holder, BigInt(change.token_id)] });
    return value.toString();
  }

  test('every transaction: balances are the node’s, changes add up to the fee burnt, token balances are balanceOf', async () => {
    let transactions = 0;
    let tokenChanges = 0;
    let paged = false;
    for (const block of blocks) {
      const number = Number(block.number);
      const alone = block.transactions.length === 1;
      for (const hash of block.transactions) {
        const list = await collectList(withNode, `/api/v2/transactions/${hash}/state-changes`);
        const items = list.items as StateChangeJson[];
        if (list.pageSizes.length > 1) paged = true;
        transactions++;
        const receipt = await chain.client.request<{ gasUsed: string; blobGasUsed?: string; blobGasPrice?: string }>(
          'eth_getTransactionReceipt',
          [hash],
        );
        const burnt =
          BigInt(receipt.gasUsed) * BigInt(block.baseFeePerGas ?? '0') +
          BigInt(receipt.blobGasUsed ?? '0') * BigInt(receipt.blobGasPrice ?? '0');
        const coins = items.filter((c) => c.type === 'coin');
        assert.equal(
          coins.reduce((sum, c) => sum + BigInt(c.change as string), 0n),
          -burnt,
          `${hash}: coin changes add up to the fee burnt`,
        );
        for (const c of coins) {
          assert.notEqual(c.balance_before, null, `${hash} ${c.address.hash}: an archive node tells every balance`);
          assert.equal(BigInt(c.balance_after!) - BigInt(c.balance_before!), BigInt(c.change as string));
          if (alone) {
            assert.equal(c.balance_before, await balanceAt(c.address.hash, number - 1), `${hash} ${c.address.hash} before`);
            assert.equal(c.balance_after, await balanceAt(c.address.hash, number), `${hash} ${c.address.hash} after`);
          }
        }
        if (alone) {
          // Every address whose balance the node says moved is listed (its sender always is).
          const sender = (await node.getTransaction({ hash: hash as `0x${string}` })).from.toLowerCase();
          assert.ok(
            coins.some((c) => c.address.hash.toLowerCase() === sender),
            `${hash}: the sender pays its fee`,
          );
        }
        for (const t of items.filter((c) => c.type === 'token')) {
          tokenChanges++;
          if (t.address.hash === ZERO) {
            // As Blockscout: the zero address holds nothing before; a mint's negative balance after is shown as null.
            assert.ok(t.balance_before === null || t.balance_before === '0', 'the zero address holds nothing');
            continue;
          }
          if (!alone) continue;
          assert.equal(t.balance_before, await tokenBalanceAt(t, number - 1), `${hash} ${t.address.hash} ${t.token!.address_hash} before`);
          assert.equal(t.balance_after, await tokenBalanceAt(t, number), `${hash} ${t.address.hash} ${t.token!.address_hash} after`);
          if (t.token!.type === 'ERC-721') assert.ok(Array.isArray(t.change) && t.change.length > 0);
          else assert.equal(BigInt(t.change as string), BigInt(t.balance_after!) - BigInt(t.balance_before!));
        }
        // Token transfers the node reports for this block each appear for their sender and receiver.
        for (const transfer of chain.transfers.filter((x) => x.blockNumber === number && alone && x.value > 0n && x.from !== x.to)) {
          for (const holder of [transfer.from, transfer.to]) {
            assert.ok(
              items.some(
                (c) =>
                  c.type === 'token' &&
                  c.address.hash.toLowerCase() === holder &&
                  c.token!.address_hash.toLowerCase() === transfer.token &&
                  (transfer.type !== 'ERC-1155' || c.token_id === transfer.tokenId!.toString()),
              ) || transfer.type === 'ERC-20',
              `${hash}: ${holder} listed for ${transfer.token}`,
            );
          }
        }
      }
    }
    assert.ok(transactions > 20, `the scenario's transactions (${transactions})`);
    assert.ok(tokenChanges > 100, `token changes (${tokenChanges})`);
    assert.ok(paged, 'the 60-id batch pages its state changes');
  });

  test('from the index alone: a balance read is used where nothing moved the coin since, and only then', async () => {
    const all = blocks.flatMap((b) => b.transactions.map((hash) => ({ hash, number: Number(b.number) })));
    // Without a node or any balance read, balances are unknown and the changes still known.
    const first = all[all.length - 1]!;
    const unknown = (await withoutNode.get(`/api/v2/transactions/${first.hash}/state-changes`)).body.items as StateChangeJson[];
    const coins = unknown.filter((c) => c.type === 'coin');
    assert.ok(coins.length > 0 && coins.every((c) => c.balance_before === null && c.balance_after === null));
    // Reads at block 1 only, as the node answers them: every balance told from them is the node's.
    const addresses = new Set<string>();
    for (const { hash } of all) {
      const items = (await withNode.get(`/api/v2/transactions/${hash}/state-changes`)).body.items as StateChangeJson[];
      for (const c of items) if (c.type === 'coin') addresses.add(c.address.hash.toLowerCase());
    }
    for (const address of addresses) {
      await db.pool.query('INSERT INTO address_coin_balances (address, block_number, value) VALUES ($1, 1, $2)', [
        bytea(address),
        await balanceAt(address, 1),
      ]);
    }
    let told = 0;
    for (const { hash, number } of all) {
      const items = (await withoutNode.get(`/api/v2/transactions/${hash}/state-changes`)).body.items as StateChangeJson[];
      for (const c of items.filter((x) => x.type === 'coin' && x.balance_before !== null)) {
        const block = blocks.find((b) => Number(b.number) === number)!;
        if (block.transactions.length !== 1) continue;
        told++;
        assert.equal(c.balance_before, await balanceAt(c.address.hash, number - 1), `${hash} ${c.address.hash} from the index`);
      }
    }
    assert.ok(told > 0, 'some balances are told by the index alone');
  });

  test('the ledger’s token balance at every block is balanceOf there, summed from the first transfer or from the current balance', async () => {
    // Every balance the chain's transfers move (ERC-1155 per id), the zero address left out (it holds
    // nothing), as are contracts whose Transfers are of two kinds (ERC-404, which the ledger splits).
    const kinds = new Map<string, Set<NodeTransfer['type']>>();
    for (const t of chain.transfers) kinds.set(t.token, (kinds.get(t.token) ?? new Set()).add(t.type));
    const keys = new Map<string, TokenBalanceKey & { type: NodeTransfer['type']; first: number; last: number }>();
    for (const t of chain.transfers.filter((x) => kinds.get(x.token)!.size === 1)) {
      const tokenId = t.type === 'ERC-1155' ? t.tokenId : null;
      const token = t.token.toLowerCase() as Address;
      for (const holder of [t.from, t.to].map((a) => a.toLowerCase() as Address)) {
        if (holder === ZERO) continue;
        const id = `${holder}:${token}:${tokenId ?? ''}`;
        const key = keys.get(id) ?? { holder, token, tokenId, type: t.type, first: t.blockNumber, last: t.blockNumber };
        key.last = t.blockNumber;
        keys.set(id, key);
      }
    }
    const list = [...keys.values()];
    const head = Number(await node.getBlockNumber());
    let fromFirst = 0;
    let fromCurrent = 0;
    for (let block = 0; block <= head; block++) {
      const ledger = await readLedgerTokenBalancesAt(db.pool, list, block);
      for (const [i, key] of list.entries()) {
        if (block - key.first < key.last - block) fromFirst++;
        else fromCurrent++;
        // Before its first transfer the holder has none of the token (which may not exist yet).
        if (block < key.first) {
          assert.equal(ledger[i], 0n, `${key.holder} ${key.token} ${key.tokenId ?? ''} at ${block}, before its first transfer`);
          continue;
        }
        const call = { address: key.token, abi: balanceAbi, blockNumber: BigInt(block) } as const;
        const onChain =
          key.tokenId === null
            ? await node.readContract({ ...call, functionName: 'balanceOf', args: [key.holder] })
            : await node.readContract({ ...call, functionName: 'balanceOf', args: [key.holder, key.tokenId] });
        assert.equal(ledger[i], onChain, `${key.type} ${key.holder} ${key.token} ${key.tokenId ?? ''} at ${block}`);
      }
    }
    assert.ok(
      fromFirst > 0 && fromCurrent > 0,
      `balances read nearer the first transfer (${fromFirst}) and nearer the last (${fromCurrent})`,
    );
  });

  test('an unknown transaction is a 404, a malformed hash a 422 naming it, items_count out of range a 422', async () => {
    const unknown = await withNode.get(`/api/v2/transactions/0x${'ab'.repeat(32)}/state-changes`);
    assert.equal(unknown.status, 404);
    const bad = await withNode.get('/api/v2/transactions/0x1234/state-changes');
    assert.equal(bad.status, 422);
    assert.match(bad.text, /transaction_hash/);
    const count = await withNode.get(`/api/v2/transactions/${blocks[0]!.transactions[0]!}/state-changes?items_count=0`);
    assert.equal(count.status, 422);
    assert.match(count.text, /items_count/);
  });
});
