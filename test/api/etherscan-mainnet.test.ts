import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RpcLog, RpcTransaction } from '../../src/chain/rpc-types.js';
import type { TestDatabase } from '../support/database.js';
import { assertLogItemIsV2, assertTokentxItemIsV2, assertTxlistItemIsV2 } from '../support/etherscan-compare.js';
import { assertResult, envelopeSchema, ajv } from '../support/etherscan-schemas.js';
import { createMainnetBlockDatabase, loadMainnetBlock18000000 } from '../support/mainnet-fixtures.js';
import { type RunningApi, collectList, queryString, startApi } from './http.js';

/**
 * The Etherscan-style API on mainnet block 18,000,000 as recorded (test/fixtures/erigon-rpc-tests):
 * txlist, tokentx, getLogs and balance of every address the block touches, against /api/v2's answer
 * for the same data, and getLogs against the recorded receipts' logs.
 */

const recorded = loadMainnetBlock18000000();
const transactions = recorded.block.transactions as RpcTransaction[];
const logs: RpcLog[] = recorded.receipts.flatMap((r) => r.logs);
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const topicAddress = (topic: string) => `0x${topic.slice(26)}`.toLowerCase();

/** The senders and recipients of the block's transactions, and the parties of its Transfer events (ERC-20's have three topics). */
const transactionParties = [...new Set(transactions.flatMap((t) => [t.from, t.to ?? null]).filter((a) => a !== null))].map((a) =>
  a.toLowerCase(),
);
const transferParties = [
  ...new Set(
    logs.filter((l) => l.topics[0] === TRANSFER_TOPIC && l.topics.length === 3).flatMap((l) => l.topics.slice(1).map(topicAddress)),
  ),
];
const emitters = [...new Set(logs.map((l) => l.address.toLowerCase()))];

let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createMainnetBlockDatabase();
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

/** The envelope of GET /api with these parameters; a success's result checked against the action's schema. */
async function get(params: Record<string, string | number>): Promise<{ status: string; message: string; result: any }> {
  const response = await fetch(`${api.base}/api${queryString(params)}`);
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.ok(ajv.validate(envelopeSchema, body), JSON.stringify(body));
  if (body.status === '1') assertResult(String(params.action), body.result);
  return body;
}

test('txlist of every sender and recipient of block 18,000,000 is its /api/v2 transactions, field by field, in both orders', async () => {
  let compared = 0;
  for (const address of transactionParties) {
    const v2 = (await collectList(api, `/api/v2/addresses/${address}/transactions`)).items as any[];
    assert.ok(v2.length > 0, address);
    const desc = await get({ module: 'account', action: 'txlist', address, sort: 'desc' });
    assert.deepEqual(
      desc.result.map((t: any) => t.hash),
      v2.map((t) => t.hash),
      address,
    );
    for (const [i, item] of desc.result.entries()) assertTxlistItemIsV2(item, v2[i]);
    const asc = await get({ module: 'account', action: 'txlist', address });
    assert.deepEqual(asc.result, [...desc.result].reverse(), address);
    compared += v2.length;
  }
  assert.ok(compared >= transactions.length * 2 - 1, `${compared} items compared`);
});

test('tokentx of every party of an ERC-20 transfer in block 18,000,000 is its /api/v2 ERC-20 token transfers', async () => {
  let compared = 0;
  for (const address of new Set([...transferParties, ...transactionParties])) {
    const v2 = (await collectList(api, `/api/v2/addresses/${address}/token-transfers`, { type: 'ERC-20' })).items as any[];
    const answer = await get({ module: 'account', action: 'tokentx', address, sort: 'desc' });
    if (v2.length === 0) {
      assert.deepEqual(answer, { status: '0', message: 'No token transfers found', result: [] }, address);
      continue;
    }
    assert.deepEqual(
      answer.result.map((t: any) => `${t.hash}:${t.logIndex}`),
      v2.map((t) => `${t.transaction_hash}:${t.log_index}`),
      address,
    );
    for (const [i, item] of answer.result.entries()) assertTokentxItemIsV2(item, v2[i]);
    compared += v2.length;
  }
  assert.ok(compared > 100, `${compared} transfers compared`);
});

test('getLogs of every emitter of block 18,000,000 is its /api/v2 logs, and by topic the recorded receipts’ logs', async () => {
  let compared = 0;
  for (const address of emitters) {
    const v2 = (await collectList(api, `/api/v2/addresses/${address}/logs`)).items as any[];
    const answer = await get({ module: 'logs', action: 'getLogs', fromBlock: 18_000_000, toBlock: 'latest', address });
    // getLogs is oldest first, /api/v2 newest first.
    const oldestFirst = [...v2].reverse();
    assert.equal(answer.result.length, oldestFirst.length, address);
    for (const [i, item] of answer.result.entries()) assertLogItemIsV2(item, oldestFirst[i]);
    compared += v2.length;
  }
  assert.equal(compared, logs.length);
  const transfers = await get({ module: 'logs', action: 'getLogs', fromBlock: 18_000_000, toBlock: 18_000_000, topic0: TRANSFER_TOPIC });
  assert.deepEqual(
    transfers.result.map((l: any) => [l.transactionHash, l.logIndex, l.address, l.data]),
    logs
      .filter((l) => l.topics[0] === TRANSFER_TOPIC)
      .map((l) => [l.transactionHash, `0x${BigInt(l.logIndex).toString(16)}`, l.address.toLowerCase(), l.data]),
  );
  assert.deepEqual(await get({ module: 'logs', action: 'getLogs', fromBlock: 17_999_999, toBlock: 17_999_999, topic0: TRANSFER_TOPIC }), {
    status: '0',
    message: 'No logs found',
    result: [],
  });
});

test('balance of every address of block 18,000,000 is its /api/v2 coin balance', async () => {
  // The recording holds no eth_getBalance answer, so no balance is read: both APIs say so, in their words.
  for (const address of transactionParties) {
    const v2 = (await api.get(`/api/v2/addresses/${address}`)).body;
    const balance = await get({ module: 'account', action: 'balance', address });
    assert.equal(balance.result, v2.coin_balance ?? '0', address);
  }
  const multi = await get({ module: 'account', action: 'balancemulti', address: transactionParties.slice(0, 20).join(',') });
  assert.deepEqual(
    multi.result.map((b: any) => b.account),
    transactionParties.slice(0, 20),
  );
});
