import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import type { Address } from 'viem';
import type { RpcLog } from '../../src/chain/rpc-types.js';
import { startCoinBalanceStage } from '../../src/indexer/stages/coin-balance-stage.js';
import { startTokenMetadataStage } from '../../src/indexer/stages/token-metadata-stage.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { type NodeTransfer, type TokenChain, indexTokenChain, startTokenChain, transferEvents } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, collectList, queryString, startApi } from './http.js';
import { ajv, envelopeSchema, resultSchemas } from '../support/etherscan-schemas.js';
import { assertTxlistItemIsV2 } from '../support/etherscan-compare.js';
import { encodeFunctionData, erc20Abi, toEventSelector } from 'viem';

/**
 * The Etherscan-style API (/api?module=…&action=…) over real HTTP, on the token chain indexed from
 * anvil: each action's answer against the node's own answer and /api/v2's for the same data, its
 * JSON schema (after Blockscout's views), and the errors and limits Blockscout answers with.
 */

let chain: TokenChain;
let db: TestDatabase;
let api: RunningApi;
let stopStage: () => Promise<void>;
let accounts: Address[];

before(async () => {
  chain = await startTokenChain();
  db = await createTestDatabase();
  await indexTokenChain(chain, db);
  const stage = startCoinBalanceStage({
    pool: db.pool,
    client: chain.client,
    logger: pino({ level: 'silent' }),
    batchSize: 10,
    pollIntervalMs: 50,
    backoff: { initialMs: 10, maxMs: 100 },
  });
  const tokenStage = startTokenMetadataStage({
    pool: db.pool,
    client: chain.client,
    logger: pino({ level: 'silent' }),
    batchSize: 10,
    pollIntervalMs: 20,
  });
  const traceStage = startTraceStage({
    pool: db.pool,
    client: chain.client,
    traceMethod: 'trace_block',
    logger: pino({ level: 'silent' }),
    batchSize: 10,
    concurrency: 2,
    pollIntervalMs: 20,
    backoff: { initialMs: 10, maxMs: 100 },
  });
  stopStage = async () => {
    await stage.stop();
    await tokenStage.stop();
    await traceStage.stop();
  };
  api = await startApi(db.pool);
  const { alice, bob, carol, dave, deployer } = chain.scenario.accounts;
  accounts = [alice, bob, carol, dave, deployer].map((a) => a.toLowerCase() as Address);
  await waitFor(
    async () => Number((await db.pool.query('SELECT count(*) AS n FROM coin_balance_marks')).rows[0].n) === 0,
    'every marked coin balance is read',
    { timeoutMs: 60_000 },
  );
  await waitFor(
    async () => Number((await db.pool.query('SELECT count(*) AS n FROM blocks WHERE traced_at IS NULL')).rows[0].n) === 0,
    'every block is traced',
    { timeoutMs: 60_000 },
  );
  await waitFor(
    async () => Number((await db.pool.query('SELECT count(*) AS n FROM tokens WHERE metadata_fetched_at IS NULL')).rows[0].n) === 0,
    'every token contract is read',
    { timeoutMs: 60_000 },
  );
});
after(async () => {
  await stopStage?.();
  await api?.close();
  await db?.drop();
  await chain?.anvil.stop();
});

interface Answer {
  httpStatus: number;
  body: any;
}

async function answerOf(response: Response): Promise<Answer> {
  const body = await response.json();
  return { httpStatus: response.status, body };
}

/** GET /api with these parameters; every answer but eth_block_number's is the envelope. */
async function get(params: Record<string, string | number>, path = '/api'): Promise<Answer> {
  const answer = await answerOf(await fetch(api.base + path + queryString(params)));
  if (params.action !== 'eth_block_number') assert.ok(ajv.validate(envelopeSchema, answer.body), JSON.stringify(answer.body));
  return answer;
}

/** The body of a GET that must succeed, checked against the action's result schema. */
async function result(params: Record<string, string | number>): Promise<any> {
  const { httpStatus, body } = await get(params);
  assert.equal(httpStatus, 200, JSON.stringify(body));
  assert.deepEqual([body.status, body.message], ['1', 'OK'], JSON.stringify(body));
  const schema = resultSchemas[String(params.action)];
  assert.ok(schema !== undefined, `a schema for ${params.action}`);
  assert.ok(ajv.validate(schema, body.result), `${params.action}: ${ajv.errorsText()} in ${JSON.stringify(body.result).slice(0, 300)}`);
  return body.result;
}

const nodeHead = async () => Number(BigInt(await chain.client.request<string>('eth_blockNumber', [])));

test('balance and balancemulti are the node’s eth_getBalance at the indexed head', async () => {
  const head = `0x${(await nodeHead()).toString(16)}`;
  const expected = await Promise.all(
    accounts.map(async (a) => BigInt(await chain.client.request<string>('eth_getBalance', [a, head])).toString()),
  );
  for (const [i, account] of accounts.entries()) {
    assert.equal(await result({ module: 'account', action: 'balance', address: account }), expected[i], account);
  }
  const multi = await result({ module: 'account', action: 'balancemulti', address: accounts.join(',') });
  assert.deepEqual(
    multi,
    accounts.map((account, i) => ({ account, balance: expected[i], stale: false })),
  );
  // One address listed: balancemulti still answers a list.
  assert.equal((await result({ module: 'account', action: 'balancemulti', address: accounts[0]! })).length, 1);
});

test('txlist is the address’s /api/v2 transactions, oldest first by default, desc on request, every page and block range', async () => {
  for (const account of accounts) {
    const v2 = (await collectList(api, `/api/v2/addresses/${account}/transactions`)).items;
    assert.ok(v2.length > 0, account);
    const all = await result({ module: 'account', action: 'txlist', address: account });
    assert.deepEqual(
      all.map((t: any) => t.hash),
      v2.map((t: any) => t.hash).reverse(),
      account,
    );
    const desc = await result({ module: 'account', action: 'txlist', address: account, sort: 'desc' });
    assert.deepEqual(
      desc.map((t: any) => t.hash),
      v2.map((t: any) => t.hash),
    );
    // Every field of every item against /api/v2's item.
    for (const item of all)
      assertTxlistItemIsV2(
        item,
        v2.find((x: any) => x.hash === item.hash),
      );
    // Pages of 2 put end to end are the list; a page past the end is empty.
    const pages: string[] = [];
    for (let page = 1; ; page++) {
      const { body } = await get({ module: 'account', action: 'txlist', address: account, page, offset: 2 });
      if (body.status === '0') {
        assert.deepEqual(body, { status: '0', message: 'No transactions found', result: [] });
        break;
      }
      assert.ok(body.result.length <= 2);
      pages.push(...body.result.map((t: any) => t.hash));
    }
    assert.deepEqual(
      pages,
      all.map((t: any) => t.hash),
    );
    const middle = Number(all[Math.floor(all.length / 2)].blockNumber);
    const ranged = await get({ module: 'account', action: 'txlist', address: account, startblock: middle, endblock: middle });
    assert.deepEqual(
      ranged.body.result.map((t: any) => t.hash),
      all.filter((t: any) => Number(t.blockNumber) === middle).map((t: any) => t.hash),
    );
  }
});

test('txlist items carry the node’s receipt fields', async () => {
  const all = await result({ module: 'account', action: 'txlist', address: accounts[0]! });
  for (const item of all.slice(0, 5)) {
    const receipt = await chain.client.request<any>('eth_getTransactionReceipt', [item.hash]);
    const transaction = await chain.client.request<any>('eth_getTransactionByHash', [item.hash]);
    assert.equal(item.blockHash, receipt.blockHash);
    assert.equal(item.cumulativeGasUsed, BigInt(receipt.cumulativeGasUsed).toString());
    assert.equal(item.gasUsed, BigInt(receipt.gasUsed).toString());
    assert.equal(item.txreceipt_status, String(Number(BigInt(receipt.status))));
    assert.equal(item.nonce, BigInt(transaction.nonce).toString());
    assert.equal(item.methodId, transaction.input.length >= 10 ? transaction.input.slice(0, 10) : '0x');
    assert.equal(item.confirmations, String((await nodeHead()) - Number(item.blockNumber)));
  }
});

const oldestFirst = (a: NodeTransfer, b: NodeTransfer) =>
  a.blockNumber - b.blockNumber || a.logIndex - b.logIndex || a.batchIndex - b.batchIndex;

test('tokentx, tokennfttx and token1155tx are the node’s transfers of that type to or from the address, of a token or any', async () => {
  const cases = [
    ['tokentx', 'ERC-20'],
    ['tokennfttx', 'ERC-721'],
    ['token1155tx', 'ERC-1155'],
  ] as const;
  let compared = 0;
  for (const [action, type] of cases) {
    for (const account of accounts) {
      const expected = chain.transfers.filter((t) => t.type === type && (t.from === account || t.to === account)).sort(oldestFirst);
      const { body } = await get({ module: 'account', action, address: account });
      if (expected.length === 0) {
        assert.deepEqual(body, { status: '0', message: 'No token transfers found', result: [] }, `${action} ${account}`);
        continue;
      }
      const items = await result({ module: 'account', action, address: account });
      const key = (t: { blockNumber: number | string; logIndex: number | string; from: string; to: string; token: string }) =>
        `${t.blockNumber}:${t.logIndex}:${t.from}:${t.to}:${t.token}`;
      assert.deepEqual(
        items.map((i: any) => key({ ...i, token: i.contractAddress })),
        expected.map(key),
        `${action} ${account}`,
      );
      for (const [n, item] of items.entries()) {
        const t = expected[n]!;
        if (type === 'ERC-20') assert.equal(item.value, t.value.toString());
        else assert.equal(item.tokenID, t.tokenId!.toString());
        if (type === 'ERC-1155') assert.equal(item.tokenValue, t.value.toString());
      }
      compared += items.length;
    }
  }
  assert.ok(compared > 0);
  // One token's transfers: contractaddress alone, then with an address.
  const erc20 = chain.scenario.contracts.erc20.toLowerCase();
  const ofToken = chain.transfers.filter((t) => t.token === erc20).sort(oldestFirst);
  const items = await result({ module: 'account', action: 'tokentx', contractaddress: erc20 });
  assert.deepEqual(
    items.map((i: any) => `${i.blockNumber}:${i.logIndex}`),
    ofToken.map((t) => `${t.blockNumber}:${t.logIndex}`),
  );
  // The same transfers as /api/v2's token transfers of the token.
  const v2 = (await collectList(api, `/api/v2/tokens/${erc20}/transfers`)).items;
  assert.deepEqual(
    items.map((i: any) => i.hash).reverse(),
    v2.map((t: any) => t.transaction_hash),
  );
});

test('tokenbalance and tokenlist are the holdings /api/v2 lists', async () => {
  const erc20 = chain.scenario.contracts.erc20.toLowerCase();
  for (const account of accounts) {
    const v2 = (await collectList(api, `/api/v2/addresses/${account}/tokens`)).items as any[];
    const held = v2.find((b) => b.token.address_hash.toLowerCase() === erc20);
    assert.equal(await result({ module: 'account', action: 'tokenbalance', address: account, contractaddress: erc20 }), held?.value ?? '0');
    const { body } = await get({ module: 'account', action: 'tokenlist', address: account });
    if (v2.length === 0) {
      assert.deepEqual(body, { status: '0', message: 'No tokens found', result: [] });
      continue;
    }
    const list = await result({ module: 'account', action: 'tokenlist', address: account });
    const key = (token: string, id: string | null | undefined, value: string) => `${token}:${id ?? ''}:${value}`;
    assert.deepEqual(
      list.map((t: any) => key(t.contractAddress, t.id, t.balance)).sort(),
      v2.map((b) => key(b.token.address_hash.toLowerCase(), b.token_id, b.value)).sort(),
      account,
    );
  }
});

test('getLogs is the node’s eth_getLogs: by address, by topics with and/or, over a block range', async () => {
  const head = await nodeHead();
  const nodeLogs = async (filter: object) =>
    chain.client.request<RpcLog[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: `0x${head.toString(16)}`, ...filter }]);
  const shown = (logs: RpcLog[]) =>
    logs.map((l) => ({
      address: l.address.toLowerCase(),
      topics: [0, 1, 2, 3].map((i) => l.topics[i] ?? null),
      data: l.data,
      blockNumber: `0x${BigInt(l.blockNumber!).toString(16)}`,
      logIndex: `0x${BigInt(l.logIndex!).toString(16)}`,
      transactionHash: l.transactionHash,
      transactionIndex: `0x${BigInt(l.transactionIndex!).toString(16)}`,
    }));
  const served = (items: any[]) =>
    items.map(({ address, topics, data, blockNumber, logIndex, transactionHash, transactionIndex }) => ({
      address,
      topics,
      data,
      blockNumber,
      logIndex,
      transactionHash,
      transactionIndex,
    }));
  for (const contract of Object.values(chain.scenario.contracts).map((a) => a.toLowerCase())) {
    const expected = await nodeLogs({ address: contract });
    const { body } = await get({ module: 'logs', action: 'getLogs', fromBlock: 0, toBlock: 'latest', address: contract });
    if (expected.length === 0) {
      assert.deepEqual(body, { status: '0', message: 'No logs found', result: [] });
      continue;
    }
    const items = await result({ module: 'logs', action: 'getLogs', fromBlock: 0, toBlock: 'latest', address: contract });
    assert.deepEqual(served(items), shown(expected), contract);
  }
  const transfer = toEventSelector(transferEvents[0]);
  const single = toEventSelector(transferEvents[1]);
  const everyTransfer = await result({ module: 'logs', action: 'getLogs', fromBlock: 0, toBlock: head, topic0: transfer });
  assert.deepEqual(served(everyTransfer), shown(await nodeLogs({ topics: [transfer] })));
  const zero = `0x${'0'.repeat(64)}`;
  const mints = await result({
    module: 'logs',
    action: 'getLogs',
    fromBlock: 0,
    toBlock: head,
    topic0: transfer,
    topic1: zero,
    topic0_1_opr: 'and',
  });
  assert.deepEqual(served(mints), shown(await nodeLogs({ topics: [transfer, zero] })));
  // or: the union of the two filters' logs, in block and log order.
  const either = await result({
    module: 'logs',
    action: 'getLogs',
    fromBlock: 0,
    toBlock: head,
    topic0: single,
    topic1: zero,
    topic0_1_opr: 'or',
  });
  const union = new Map(
    [...(await nodeLogs({ topics: [single] })), ...(await nodeLogs({ topics: [null, zero] }))].map((l) => [
      `${l.blockNumber}:${l.logIndex}`,
      l,
    ]),
  );
  const unionInOrder = [...union.values()].sort(
    (a, b) => Number(BigInt(a.blockNumber!) - BigInt(b.blockNumber!)) || Number(BigInt(a.logIndex!) - BigInt(b.logIndex!)),
  );
  assert.ok(unionInOrder.length > everyTransfer.length / 10);
  assert.deepEqual(served(either), shown(unionInOrder));
  const firstBlock = Number(everyTransfer[0].blockNumber);
  const oneBlock = await result({ module: 'logs', action: 'getLogs', fromBlock: firstBlock, toBlock: firstBlock, topic0: transfer });
  assert.deepEqual(
    served(oneBlock),
    shown(await nodeLogs({ fromBlock: `0x${firstBlock.toString(16)}`, toBlock: `0x${firstBlock.toString(16)}`, topics: [transfer] })),
  );
});

test('the transaction module answers as the node’s receipt and /api/v2', async () => {
  const all = await result({ module: 'account', action: 'txlist', address: accounts[0]! });
  for (const item of all.slice(0, 8)) {
    const receipt = await chain.client.request<any>('eth_getTransactionReceipt', [item.hash]);
    const status = String(Number(BigInt(receipt.status)));
    assert.deepEqual(await result({ module: 'transaction', action: 'gettxreceiptstatus', txhash: item.hash }), { status });
    const errorStatus = await result({ module: 'transaction', action: 'getstatus', txhash: item.hash });
    assert.equal(errorStatus.isError, status === '1' ? '0' : '1');
    const info = await result({ module: 'transaction', action: 'gettxinfo', txhash: item.hash });
    const v2 = (await api.get(`/api/v2/transactions/${item.hash}`)).body;
    assert.equal(info.blockNumber, String(v2.block_number));
    assert.equal(info.from, v2.from.hash.toLowerCase());
    assert.equal(info.value, v2.value);
    assert.equal(info.gasUsed, v2.gas_used);
    assert.equal(info.success, v2.status === 'ok');
    assert.deepEqual(
      info.logs.map((l: any) => l.index),
      receipt.logs.map((l: any) => String(Number(BigInt(l.logIndex)))),
    );
  }
  // Unknown transaction: an empty status, as Blockscout answers.
  const unknown = `0x${'1'.repeat(64)}`;
  assert.deepEqual(await result({ module: 'transaction', action: 'gettxreceiptstatus', txhash: unknown }), { status: '' });
  assert.deepEqual((await get({ module: 'transaction', action: 'gettxinfo', txhash: unknown })).body, {
    status: '0',
    message: 'Transaction not found',
    result: null,
  });
});

test('the block module: head, block at a time, reward, countdown', async () => {
  const head = await nodeHead();
  const rpc = await get({ module: 'block', action: 'eth_block_number', id: 7 });
  assert.deepEqual(rpc.body, { jsonrpc: '2.0', id: 7, result: `0x${head.toString(16)}` });
  const times = await Promise.all(
    Array.from({ length: head + 1 }, async (_, n) =>
      Number(BigInt((await chain.client.request<any>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).timestamp)),
    ),
  );
  const time = times[head - 2]!;
  // Several blocks may share a second: the last at or before it, the first at or after it.
  assert.equal(
    await result({ module: 'block', action: 'getblocknobytime', timestamp: time, closest: 'before' }),
    String(times.lastIndexOf(time)),
  );
  assert.equal(
    await result({ module: 'block', action: 'getblocknobytime', timestamp: time, closest: 'after' }),
    String(times.indexOf(time)),
  );
  assert.equal(await result({ module: 'block', action: 'getblocknobytime', timestamp: times[0]! - 1, closest: 'after' }), '0');
  assert.deepEqual((await get({ module: 'block', action: 'getblocknobytime', timestamp: times[0]! - 1, closest: 'before' })).body, {
    status: '0',
    message: 'Block does not exist',
    result: null,
  });
  const v2 = (await api.get(`/api/v2/blocks/${head - 2}`)).body;
  const reward = await result({ module: 'block', action: 'getblockreward', blockno: head - 2 });
  assert.equal(reward.blockMiner, v2.miner.hash.toLowerCase());
  assert.equal(reward.timeStamp, String(time));
  assert.equal(reward.blockReward, v2.rewards.find((r: any) => r.type === 'Miner Reward' || r.type === 'Validator Reward')?.reward ?? '0');
  const countdown = await result({ module: 'block', action: 'getblockcountdown', blockno: head + 10 });
  assert.deepEqual([countdown.CurrentBlock, countdown.RemainingBlock], [String(head), '10']);
  assert.deepEqual((await get({ module: 'block', action: 'getblockcountdown', blockno: 1 })).body.status, '0');
});

test('ethsupply is the sum of every balance /api/v2/addresses lists, which are the node’s eth_getBalance', async () => {
  const listed = (await collectList(api, '/api/v2/addresses')).items as any[];
  assert.ok(listed.length >= accounts.length);
  const head = `0x${(await nodeHead()).toString(16)}`;
  let nodeSum = 0n;
  for (const item of listed) nodeSum += BigInt(await chain.client.request<string>('eth_getBalance', [item.hash, head]));
  const listedSum = listed.reduce((sum, item) => sum + BigInt(item.coin_balance), 0n);
  assert.equal(listedSum, nodeSum);
  assert.equal(await result({ module: 'stats', action: 'ethsupply' }), listedSum.toString());
});

test('the stats module: a token’s supply as /api/v2 has it, and no price', async () => {
  const erc20 = chain.scenario.contracts.erc20.toLowerCase();
  const token = (await api.get(`/api/v2/tokens/${erc20}`)).body;
  assert.equal(await result({ module: 'stats', action: 'tokensupply', contractaddress: erc20 }), token.total_supply);
  await result({ module: 'stats', action: 'coinprice' });
  await result({ module: 'stats', action: 'ethprice' });
});

test('errors and limits as Blockscout answers them', async () => {
  const account = accounts[0]!;
  const cases: [Record<string, string | number>, number, object][] = [
    [{}, 400, { status: '0', message: "Params 'module' and 'action' are required parameters", result: null }],
    [{ module: 'account' }, 400, { status: '0', message: "Params 'module' and 'action' are required parameters", result: null }],
    [{ module: 'nope', action: 'txlist' }, 400, { status: '0', message: 'Unknown action', result: null }],
    [{ module: 'account', action: 'nope' }, 400, { status: '0', message: 'Unknown action', result: null }],
    [{ module: 'account', action: 'txlist' }, 200, { status: '0', message: "Query parameter 'address' is required", result: null }],
    [{ module: 'account', action: 'txlist', address: '0x12' }, 200, { status: '0', message: 'Invalid address format', result: null }],
    [
      { module: 'account', action: 'txlist', address: account, page: 101, offset: 100 },
      200,
      { status: '0', message: 'Result window is too large, PageNo x Offset size must be less than or equal to 10000', result: null },
    ],
    [
      { module: 'account', action: 'txlist', address: `0x${'9'.repeat(40)}` },
      200,
      { status: '0', message: 'No transactions found', result: [] },
    ],
    [
      { module: 'account', action: 'tokenbalance' },
      200,
      { status: '0', message: 'Required query parameters missing: contractaddress, address', result: null },
    ],
    [
      { module: 'logs', action: 'getLogs' },
      200,
      { status: '0', message: 'Required query parameters missing: fromBlock, toBlock, address and/or topic{x}', result: null },
    ],
    [
      { module: 'logs', action: 'getLogs', fromBlock: 0, toBlock: 1, topic0: `0x${'0'.repeat(64)}`, topic2: `0x${'0'.repeat(64)}` },
      200,
      { status: '0', message: 'Required query parameters missing: topic0_2_opr', result: null },
    ],
    [
      { module: 'logs', action: 'getLogs', fromBlock: 'x', toBlock: 1, address: account },
      200,
      { status: '0', message: 'Invalid fromBlock format', result: null },
    ],
    [{ module: 'transaction', action: 'gettxinfo' }, 200, { status: '0', message: 'Query parameter txhash is required', result: null }],
    [{ module: 'transaction', action: 'getstatus', txhash: '0x1' }, 200, { status: '0', message: 'Invalid txhash format', result: null }],
    [{ module: 'block', action: 'getblockreward', blockno: 'x' }, 200, { status: '0', message: 'Invalid block number', result: null }],
  ];
  for (const [params, httpStatus, body] of cases) {
    const answer = await get(params);
    assert.deepEqual(answer, { httpStatus, body }, JSON.stringify(params));
  }
  // Module and action in any case; /api/v1 and /api/ alike.
  const expected = await result({ module: 'account', action: 'txlist', address: account });
  for (const path of ['/api/v1', '/api/']) {
    const { body } = await get({ module: 'ACCOUNT', action: 'TxList', address: account }, path);
    assert.deepEqual(body.result, expected, path);
  }
  // Page 100 of 100 is the deepest window allowed.
  assert.equal(
    (await get({ module: 'account', action: 'txlist', address: account, page: 100, offset: 100 })).body.message,
    'No transactions found',
  );
});

test('POST: a form body (module and action in it or in the query string) and a JSON body answer as GET', async () => {
  const account = accounts[1]!;
  const expected = (await get({ module: 'account', action: 'txlist', address: account, sort: 'desc' })).body;
  const form = new URLSearchParams({ module: 'account', action: 'txlist', address: account, sort: 'desc' });
  const inBody = await answerOf(await fetch(`${api.base}/api`, { method: 'POST', body: form }));
  assert.deepEqual(inBody, { httpStatus: 200, body: expected });
  const inQuery = await answerOf(
    await fetch(`${api.base}/api?module=account&action=txlist`, {
      method: 'POST',
      body: new URLSearchParams({ address: account, sort: 'desc' }),
    }),
  );
  assert.deepEqual(inQuery, { httpStatus: 200, body: expected });
  const json = await answerOf(
    await fetch(`${api.base}/api/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ module: 'account', action: 'txlist', address: account, sort: 'desc' }),
    }),
  );
  assert.deepEqual(json, { httpStatus: 200, body: expected });
  // Sources travel in the body: up to 20 MB is read, more is refused in the envelope.
  const filler = 'a'.repeat(19 * 1024 * 1024);
  const large = await answerOf(
    await fetch(`${api.base}/api`, { method: 'POST', body: new URLSearchParams({ ...Object.fromEntries(form), sourceCode: filler }) }),
  );
  assert.deepEqual(large, { httpStatus: 200, body: expected });
  const tooLarge = await fetch(`${api.base}/api`, {
    method: 'POST',
    body: new URLSearchParams({ module: 'account', sourceCode: `${filler}${'a'.repeat(2 * 1024 * 1024)}` }),
  });
  assert.equal(tooLarge.status, 413);
  assert.equal((await tooLarge.json()).status, '0');
  // A body in a type the API does not read: a 4xx in the envelope.
  const refused = await fetch(`${api.base}/api`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<x/>' });
  assert.equal(refused.status, 415);
  assert.equal((await refused.json()).status, '0');
});

test('txlistinternal (by address and by transaction) and getminedblocks are what /api/v2 lists', async () => {
  const contracts = Object.values(chain.scenario.contracts).map((a) => a.toLowerCase());
  let compared = 0;
  for (const address of [...accounts, ...contracts]) {
    const v2 = (await collectList(api, `/api/v2/addresses/${address}/internal-transactions`)).items as any[];
    const key = (transactionHash: string, index: number | string) => `${transactionHash}:${index}`;
    const { body } = await get({ module: 'account', action: 'txlistinternal', address, sort: 'desc' });
    if (v2.length === 0) {
      assert.deepEqual(body, { status: '0', message: 'No internal transactions found', result: [] }, address);
      continue;
    }
    const items = await result({ module: 'account', action: 'txlistinternal', address, sort: 'desc' });
    assert.deepEqual(
      items.map((i: any) => key(i.transactionHash, i.index)),
      v2.map((i) => key(i.transaction_hash, i.index)),
      address,
    );
    for (const [n, item] of items.entries()) {
      assert.equal(item.value, v2[n].value);
      assert.equal(item.from, v2[n].from.hash.toLowerCase());
      assert.equal(item.isError, v2[n].success ? '0' : '1');
    }
    compared += items.length;
    const transactionHash = items[0].transactionHash;
    const ofTransaction = (await collectList(api, `/api/v2/transactions/${transactionHash}/internal-transactions`)).items as any[];
    const byHash = await result({ module: 'account', action: 'txlistinternal', txhash: transactionHash });
    assert.deepEqual(
      byHash.map((i: any) => Number(i.index)),
      ofTransaction.map((i) => i.index).sort((a, b) => a - b),
    );
  }
  assert.ok(compared > 0, 'the chain has internal transactions');
  const { validator } = chain.scenario.accounts;
  const miner = validator.toLowerCase();
  const validated = (await collectList(api, `/api/v2/addresses/${miner}/blocks-validated`)).items as any[];
  const mined = await result({ module: 'account', action: 'getminedblocks', address: miner });
  assert.deepEqual(
    mined.map((b: any) => b.blockNumber),
    validated.map((b) => String(b.height)),
  );
});

/** Every page of `size` of the list, in order, until the first past its end (which answers `none`). */
async function pagesOf(params: Record<string, string | number>, size: number, none: string): Promise<any[][]> {
  const pages: any[][] = [];
  for (let page = 1; ; page++) {
    const { body } = await get({ ...params, page, offset: size });
    if (body.status === '0') {
      assert.deepEqual(body, { status: '0', message: none, result: [] }, `${JSON.stringify(params)} page ${page} of ${size}`);
      return pages;
    }
    pages.push(body.result);
  }
}

// Last: it adds transactions to the chain the tests above compare with.
test('every page is the rows the whole list holds at its place, in both orders, a transaction or transfer to itself once', async () => {
  const { alice } = chain.scenario.accounts;
  const erc20 = chain.scenario.contracts.erc20;
  // Alice sends ether and the ERC-20 to herself: a row both sides of each list (sender, recipient) hold.
  const selfSent = [
    await chain.client.request<string>('eth_sendTransaction', [{ from: alice, to: alice, value: '0x1' }]),
    await chain.client.request<string>('eth_sendTransaction', [
      { from: alice, to: erc20, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [alice, 1n] }) },
    ]),
  ];
  for (const hash of selfSent) {
    await waitFor(async () => (await chain.client.request('eth_getTransactionReceipt', [hash])) !== null, `${hash} is mined`);
  }
  await indexTokenChain(chain, db);
  const lists = [
    ['txlist', 'No transactions found'],
    ['tokentx', 'No token transfers found'],
    ['tokennfttx', 'No token transfers found'],
    ['token1155tx', 'No token transfers found'],
    ['txlistinternal', 'No internal transactions found'],
  ] as const;
  let compared = 0;
  for (const address of accounts) {
    for (const [action, none] of lists) {
      for (const sort of ['asc', 'desc']) {
        const params = { module: 'account', action, address, sort };
        const { body } = await get(params);
        const whole: any[] = body.result;
        for (const size of [2, 3]) {
          const pages = await pagesOf(params, size, none);
          assert.equal(pages.length, Math.ceil(whole.length / size), `${action} ${sort} ${address} pages of ${size}`);
          for (const [i, page] of pages.entries()) {
            assert.deepEqual(page, whole.slice(i * size, (i + 1) * size), `${action} ${sort} ${address} page ${i + 1} of ${size}`);
          }
          compared += pages.length;
        }
      }
    }
  }
  assert.ok(compared > 100, `${compared} pages compared`);
  const self = alice.toLowerCase();
  const transactions = await result({ module: 'account', action: 'txlist', address: self, sort: 'desc' });
  assert.deepEqual(
    transactions.slice(0, 2).map((t: any) => t.hash),
    [...selfSent].reverse(),
  );
  assert.equal(transactions.filter((t: any) => selfSent.includes(t.hash)).length, 2);
  const [transfer] = await result({ module: 'account', action: 'tokentx', address: self, sort: 'desc', page: 1, offset: 1 });
  assert.deepEqual([transfer.hash, transfer.from, transfer.to], [selfSent[1], self, self]);
  const transfers = await result({ module: 'account', action: 'tokentx', address: self });
  assert.equal(transfers.filter((t: any) => t.hash === selfSent[1]).length, 1);
});
