import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getAddress } from 'viem';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type TokenChain, indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { type RunningApi, collectList, startApi } from './http.js';

interface NodeTransaction {
  hash: string;
  blockNumber: number;
  index: number;
  parties: Set<string>;
  from: string;
  to: string | null;
  gasUsed: bigint;
}

/** Every transaction of the node's chain with its sender, recipient and created contract, read from the node itself. */
async function nodeTransactions(chain: TokenChain): Promise<NodeTransaction[]> {
  const head = Number(BigInt(await chain.client.request<string>('eth_blockNumber', [])));
  const all: NodeTransaction[] = [];
  for (let number = 0; number <= head; number++) {
    const block = await chain.client.request<{ transactions: { hash: string; from: string; to: string | null }[] }>(
      'eth_getBlockByNumber',
      [`0x${number.toString(16)}`, true],
    );
    for (const [index, t] of block.transactions.entries()) {
      const receipt = await chain.client.request<{ contractAddress: string | null; gasUsed: string }>('eth_getTransactionReceipt', [
        t.hash,
      ]);
      const parties = [t.from, t.to, receipt.contractAddress].filter((a): a is string => a !== null).map((a) => a.toLowerCase());
      all.push({
        hash: t.hash,
        blockNumber: number,
        index,
        parties: new Set(parties),
        from: t.from.toLowerCase(),
        to: t.to?.toLowerCase() ?? null,
        gasUsed: BigInt(receipt.gasUsed),
      });
    }
  }
  return all.sort((a, b) => b.blockNumber - a.blockNumber || b.index - a.index);
}

describe('the address page on the demo contracts', () => {
  let chain: TokenChain;
  let db: TestDatabase;
  let api: RunningApi;
  let transactions: NodeTransaction[];
  /** The miner of each of the node's blocks, genesis included. */
  let miners: string[];

  before(async () => {
    chain = await startTokenChain();
    db = await createTestDatabase();
    await indexTokenChain(chain, db);
    api = await startApi(db.pool);
    transactions = await nodeTransactions(chain);
    const head = Number(BigInt(await chain.client.request<string>('eth_blockNumber', [])));
    miners = await Promise.all(
      Array.from({ length: head + 1 }, async (_, n) =>
        (await chain.client.request<{ miner: string }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).miner.toLowerCase(),
      ),
    );
  });
  after(async () => {
    await api?.close();
    await db?.drop();
    await chain?.anvil.stop();
  });

  const addresses = () => {
    const all = new Set<string>(miners);
    for (const t of transactions) for (const p of t.parties) all.add(p);
    for (const t of chain.transfers) for (const p of [t.from, t.to, t.token]) all.add(p.toLowerCase());
    return [...all].sort();
  };

  test("each address's counters equal the node's chain and the lengths of its lists", async () => {
    for (const address of addresses()) {
      const counters = (await api.get(`/api/v2/addresses/${address}/counters`)).body;
      const sent = transactions.filter((t) => t.parties.has(address));
      const transfers = chain.transfers.filter((t) => t.from.toLowerCase() === address || t.to.toLowerCase() === address);
      // As Blockscout: a contract's gas is that of the transactions sent to it, when any used gas; else that of those it sent.
      const gasOf = (picked: NodeTransaction[]) => picked.reduce((sum, t) => sum + t.gasUsed, 0n);
      const incoming = gasOf(transactions.filter((t) => t.to === address));
      const isContract = (await chain.client.request<string>('eth_getCode', [address, 'latest'])) !== '0x';
      const gas = isContract && incoming > 0n ? incoming : gasOf(transactions.filter((t) => t.from === address));
      const mined = miners.filter((miner) => miner === address).length;
      assert.deepEqual(
        counters,
        {
          gas_usage_count: gas.toString(),
          token_transfers_count: String(transfers.length),
          transactions_count: String(sent.length),
          validations_count: String(mined),
        },
        address,
      );
      const validated = await collectList(api, `/api/v2/addresses/${address}/blocks-validated`);
      assert.equal(validated.items.length, mined, address);
      const list = await collectList(api, `/api/v2/addresses/${address}/transactions`);
      assert.deepEqual(
        list.items.map((item: { hash: string }) => item.hash),
        sent.map((t) => t.hash),
        address,
      );
      const e8 = await collectList(api, `/api/v2/addresses/${address}/token-transfers`);
      assert.equal(e8.items.length, transfers.length, address);
      const tabs = (await api.get(`/api/v2/addresses/${address}/tabs-counters`)).body;
      assert.equal(tabs.transactions_count, Math.min(51, sent.length), address);
      assert.equal(tabs.token_transfers_count, Math.min(51, transfers.length), address);
      const logs = await chain.client.request<unknown[]>('eth_getLogs', [{ address, fromBlock: '0x0', toBlock: 'latest' }]);
      assert.equal(tabs.logs_count, Math.min(51, logs.length), address);
      assert.equal((await api.get(`/api/v2/addresses/${address}`)).body.has_logs, logs.length > 0, address);
    }
  });

  test('filter=from lists what the address sent, filter=to what it received or created', async () => {
    const { deployer } = chain.scenario.accounts;
    const address = deployer.toLowerCase();
    const from = await collectList(api, `/api/v2/addresses/${address}/transactions`, { filter: 'from' });
    assert.deepEqual(
      from.items.map((item: { hash: string }) => item.hash),
      transactions.filter((t) => t.from === address).map((t) => t.hash),
    );
    const erc20 = chain.scenario.contracts.erc20.toLowerCase();
    const to = await collectList(api, `/api/v2/addresses/${erc20}/transactions`, { filter: 'to' });
    assert.deepEqual(
      to.items.map((item: { hash: string }) => item.hash),
      transactions.filter((t) => t.parties.has(erc20) && t.from !== erc20).map((t) => t.hash),
    );
    assert.ok(to.items.length > 1);
  });

  test('a token contract: its creator, its creation transaction, its token, its flags', async () => {
    const erc20 = chain.scenario.contracts.erc20;
    const created = transactions.filter((t) => t.parties.has(erc20.toLowerCase())).at(-1)!;
    const { status, body } = await api.get(`/api/v2/addresses/${erc20.toLowerCase()}`);
    assert.equal(status, 200);
    assert.equal(body.hash, getAddress(erc20));
    assert.equal(body.is_contract, true);
    assert.equal(body.creator_address_hash, getAddress(chain.scenario.accounts.deployer));
    assert.equal(body.creation_transaction_hash, created.hash);
    assert.equal(body.creation_status, 'success');
    assert.equal(body.token.address_hash, getAddress(erc20));
    assert.equal(body.token.type, 'ERC-20');
    assert.equal(body.has_logs, true);
    const party = chain.transfers.some((t) => t.from.toLowerCase() === erc20.toLowerCase() || t.to.toLowerCase() === erc20.toLowerCase());
    assert.equal(body.has_token_transfers, party);
    assert.equal(body.coin_balance, null);
    assert.equal(body.exchange_rate, null);
  });

  test('an account holding tokens: has_tokens, no creation, not a contract', async () => {
    const carol = chain.scenario.accounts.carol;
    const body = (await api.get(`/api/v2/addresses/${carol}`)).body;
    assert.equal(body.is_contract, false);
    assert.equal(body.has_tokens, true);
    assert.equal(body.creator_address_hash, null);
    assert.equal(body.creation_transaction_hash, null);
    assert.equal(body.creation_status, null);
  });
});

describe('the address page on a synthetic chain', () => {
  // Three transactions a block: sender0 sends the first of each (120 in blocks 1..120), receiver0 gets it.
  const sender = syntheticAddress('sender0');
  const miner = syntheticAddress('miner');
  const chainOf = (to: bigint) => syntheticChain({ from: 1n, to, transactionsPerBlock: () => 3, miner: () => miner });
  let db: TestDatabase;
  let clean: TestDatabase;
  let api: RunningApi;
  let cleanApi: RunningApi;

  before(async () => {
    db = await createTestDatabase();
    clean = await createTestDatabase();
    const bundles = chainOf(120n);
    // A transaction to itself counts once.
    const self = bundles[0]!.transactions[0]!;
    self.to = self.from;
    await writeBlockBundles(db.pool, bundles.slice(0, 60));
    await writeBlockBundles(db.pool, bundles.slice(60));
    const kept = chainOf(100n);
    kept[0]!.transactions[0]!.to = kept[0]!.transactions[0]!.from;
    await writeBlockBundles(clean.pool, kept);
    api = await startApi(db.pool);
    cleanApi = await startApi(clean.pool);
  });
  after(async () => {
    await api?.close();
    await cleanApi?.close();
    await db?.drop();
    await clean?.drop();
  });

  test('pages of 50 round trip, the counters count each transaction once, the tab counts stop at 51', async () => {
    const list = await collectList(api, `/api/v2/addresses/${sender}/transactions`);
    assert.deepEqual(list.pageSizes, [50, 50, 20]);
    assert.deepEqual(list.nextPageParams, [
      { block_number: 71, index: 0, items_count: 50 },
      { block_number: 21, index: 0, items_count: 50 },
    ]);
    assert.deepEqual(
      list.items.map((t: { block_number: number }) => t.block_number),
      Array.from({ length: 120 }, (_, i) => 120 - i),
    );
    const counters = (await api.get(`/api/v2/addresses/${sender}/counters`)).body;
    assert.deepEqual(counters, {
      gas_usage_count: String(120 * 21_000),
      token_transfers_count: '0',
      transactions_count: '120',
      validations_count: '0',
    });
    const tabs = (await api.get(`/api/v2/addresses/${sender}/tabs-counters`)).body;
    assert.equal(tabs.transactions_count, 51);
    assert.equal(tabs.validations_count, 0);
    assert.equal((await api.get(`/api/v2/addresses/${miner}/tabs-counters`)).body.validations_count, 51);
    assert.equal((await api.get(`/api/v2/addresses/${miner}/counters`)).body.validations_count, '120');
    assert.equal((await api.get(`/api/v2/addresses/${miner}`)).body.has_validated_blocks, true);
  });

  test('after a retraction the counters equal those of a clean index of the chain that remains', async () => {
    await retractBlocksFrom(db.pool, 101n);
    const subjects = [
      sender,
      miner,
      ...[0, 1, 2].map((i) => syntheticAddress(`sender${i}`)),
      ...[0, 1, 2, 3, 4].map((i) => syntheticAddress(`receiver${i}`)),
    ];
    for (const address of subjects) {
      for (const path of ['counters', 'tabs-counters', 'transactions']) {
        const url = `/api/v2/addresses/${address}/${path}`;
        assert.deepEqual((await api.get(url)).body, (await cleanApi.get(url)).body, url);
      }
    }
    assert.equal((await api.get(`/api/v2/addresses/${sender}/counters`)).body.transactions_count, '100');
  });

  test('an address nothing indexed mentions is a 200 with empty fields', async () => {
    const unknown = syntheticAddress('nobody');
    const { status, body } = await api.get(`/api/v2/addresses/${unknown}`);
    assert.equal(status, 200);
    assert.equal(body.hash, getAddress(unknown));
    assert.equal(body.is_contract, false);
    for (const flag of ['has_logs', 'has_tokens', 'has_token_transfers', 'has_validated_blocks', 'has_beacon_chain_withdrawals']) {
      assert.equal(body[flag], false, flag);
    }
    for (const field of ['token', 'creator_address_hash', 'creation_transaction_hash', 'coin_balance', 'exchange_rate']) {
      assert.equal(body[field], null, field);
    }
    assert.deepEqual((await api.get(`/api/v2/addresses/${unknown}/counters`)).body, {
      gas_usage_count: '0',
      token_transfers_count: '0',
      transactions_count: '0',
      validations_count: '0',
    });
    assert.deepEqual((await api.get(`/api/v2/addresses/${unknown}/transactions`)).body, { items: [], next_page_params: null });
  });

  test('malformed input is a 422 naming the parameter', async () => {
    const pointers = async (url: string) => {
      const { status, body } = await api.get(url);
      assert.equal(status, 422, url);
      return body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort();
    };
    for (const suffix of ['', '/counters', '/tabs-counters', '/transactions']) {
      assert.deepEqual(await pointers(`/api/v2/addresses/0x1234${suffix}`), ['/address_hash'], suffix);
    }
    const base = `/api/v2/addresses/${sender}/transactions`;
    assert.deepEqual(await pointers(`${base}?filter=both`), ['/filter']);
    assert.deepEqual(await pointers(`${base}?block_number=10`), ['/index']);
    assert.deepEqual(await pointers(`${base}?block_number=-1&index=0`), ['/block_number']);
  });
});
