import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import solc from 'solc';
import {
  type AbiEvent,
  type AbiFunction,
  type Address,
  type Hash,
  createWalletClient,
  decodeErrorResult,
  decodeEventLog,
  decodeFunctionData,
  getAddress,
  http,
  keccak256,
  parseAbiItem,
} from 'viem';
import { loadSignatureDatabase } from '../../src/app/signature-database.js';
import { DemoERC20 } from '../../src/demo/artifacts.js';
import { abiEntries } from '../../src/decoding/index.js';
import type { Hex } from '../../src/model.js';
import { saveContractMethods } from '../../src/store/contract-methods.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import {
  type DecodingChain,
  indexAndTrace,
  startDecodingChain,
  storeContractCodes,
  storeVerifiedContract,
} from '../support/decoding-chain.js';
import { expectedInput, expectedLog } from '../support/expected-decoding.js';
import { waitForMined } from '../support/mined.js';
import { type RunningApi, collectList, startApi } from './http.js';

// Calls, logs and reverts of contracts nobody verified, decoded with the signature database Sextant
// ships (loaded into PostgreSQL as `sextant start` loads it), each compared with viem's decoding by
// the signature that matches; the demo scenario's unverified tokens and a contract whose functions and
// error are signatures of the database.

/** Functions and an error whose signatures the database has: a struct holding arrays, an array of structs. */
const probeSource = `// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

contract SignatureProbe {
    struct Order { address[3] parties; uint256[3] amounts; uint8 v; bytes32 r; bytes32 s; }
    struct Terms { uint256 start; uint256 length; uint256 rate; }

    error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed);

    uint256 public total;

    function performBuyOrder(Order calldata order, uint256 amount) external {
        total += order.amounts[0] + amount;
    }

    function pushTerms(Terms[] calldata terms) external {
        total += terms.length;
    }

    function withdraw(uint256 amount) external view {
        revert ERC20InsufficientBalance(msg.sender, total, amount);
    }
}
`;

function compileProbe(): { abi: readonly AbiFunction[]; bytecode: Hex } {
  const input = {
    language: 'Solidity',
    sources: { 'SignatureProbe.sol': { content: probeSource } },
    settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const contract = output.contracts['SignatureProbe.sol'].SignatureProbe;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

let chain: DecodingChain;
let db: TestDatabase;
let api: RunningApi;
let probe: Address;
const sent = {} as { order: Hash; terms: Hash; withdraw: Hash };

before(async () => {
  chain = await startDecodingChain();
  const compiled = compileProbe();
  const wallet = createWalletClient({ transport: http(chain.anvil.rpcUrl) });
  const { alice, bob, carol } = chain.scenario.accounts;
  const deployment = await wallet.deployContract({ abi: compiled.abi, bytecode: compiled.bytecode, account: alice, chain: null });
  await waitForMined(chain.client, deployment);
  probe = getAddress((await chain.client.request<{ contractAddress: Address }>('eth_getTransactionReceipt', [deployment])).contractAddress);
  const send = async (functionName: string, args: readonly unknown[], gas?: bigint): Promise<Hash> => {
    const hash = await wallet.writeContract({ address: probe, abi: compiled.abi, functionName, args, account: bob, chain: null, gas });
    await waitForMined(chain.client, hash);
    return hash;
  };
  const order = { parties: [alice, bob, carol], amounts: [5n, 6n, 7n], v: 27, r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}` };
  sent.order = await send('performBuyOrder', [order, 9n]);
  sent.terms = await send('pushTerms', [
    [
      { start: 1n, length: 2n, rate: 3n },
      { start: 4n, length: 5n, rate: 6n },
    ],
  ]);
  // An explicit gas limit skips estimation, which would refuse the reverting call.
  sent.withdraw = await send('withdraw', [100n], 100_000n);

  db = await createTestDatabase();
  const head = await indexAndTrace(chain.client, db);
  await storeContractCodes(db.pool, chain.client, head);
  await loadSignatureDatabase(db.pool, pino({ level: 'silent' }));
  // A verified contract's function under transfer's selector, as a real collision of 4byte databases: a candidate before the database's.
  await saveContractMethods(db.pool, abiEntries([parseAbiItem('function many_msg_babbage(bytes1 x)')]));
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
  await chain?.anvil.stop();
});

const pageOf = async (hash: Hex) => (await api.get(`/api/v2/transactions/${hash}`)).body;

/** What viem decodes of a call with the one signature, in Blockscout's shape. */
function viemCall(signature: string, input: Hex) {
  const item = parseAbiItem(`function ${signature}`) as AbiFunction;
  return expectedInput(item, input.slice(0, 10), decodeFunctionData({ abi: [item], data: input }).args ?? []);
}

test('the signature database is loaded once: a second load of the same source changes nothing', async () => {
  const count = async () => Number((await db.pool.query('SELECT count(*) AS n FROM signatures')).rows[0].n);
  const before = await count();
  assert.ok(before > 130_000, `${before} signatures`);
  await loadSignatureDatabase(db.pool, pino({ level: 'silent' }));
  assert.equal(await count(), before);
  const { rows } = await db.pool.query('SELECT source, signatures FROM signature_sources');
  assert.deepEqual(rows, [{ source: 'sevm 0.7.4 4bytedb', signatures: before }]);
});

test("an unverified ERC-20's approve and transfer: the database's signature, as viem decodes it, in the lists and on the page", async () => {
  const erc20 = chain.scenario.contracts.erc20;
  const { items } = await collectList(api, `/api/v2/addresses/${erc20}/transactions`);
  const calls = items.filter((t: any) => t.to?.hash === erc20);
  let checked = 0;
  for (const [selector, signature, name] of [
    ['0x095ea7b3', 'approve(address,uint256)', 'approve'],
    ['0xa9059cbb', 'transfer(address,uint256)', 'transfer'],
  ] as const) {
    for (const t of calls.filter((t: any) => t.raw_input.startsWith(selector))) {
      const expected = viemCall(signature, t.raw_input);
      assert.deepEqual([t.method, t.decoded_input], [name, expected], t.hash);
      const page = await pageOf(t.hash);
      assert.deepEqual([page.method, page.decoded_input], [name, expected], `the page of ${t.hash}`);
      checked++;
    }
  }
  assert.ok(checked >= 3, `${checked} calls`);
  // transfer's selector is also many_msg_babbage(bytes1)'s, a verified candidate tried first: the types that fit win.
  const transfer = calls.find((t: any) => t.raw_input.startsWith('0xa9059cbb'));
  assert.equal(transfer.decoded_input.method_call, 'transfer(address arg0, uint256 arg1)');
});

test('a struct holding arrays and an array of structs, decoded by their signatures', async () => {
  for (const [hash, signature] of [
    [sent.order, 'performBuyOrder((address[3],uint256[3],uint8,bytes32,bytes32),uint256)'],
    [sent.terms, 'pushTerms((uint256,uint256,uint256)[])'],
  ] as const) {
    const page = await pageOf(hash);
    assert.deepEqual(page.decoded_input, viemCall(signature, page.raw_input), signature);
    assert.equal(page.method, signature.slice(0, signature.indexOf('(')));
  }
});

test('a log with indexed and unindexed parameters: the layout that fits its topics', async () => {
  const erc20 = chain.scenario.contracts.erc20;
  const signatures: Record<string, AbiEvent> = {
    Transfer: parseAbiItem('event Transfer(address indexed, address indexed, uint256)'),
    Approval: parseAbiItem('event Approval(address indexed, address indexed, uint256)'),
  };
  const { items } = await collectList(api, `/api/v2/addresses/${erc20}/logs`);
  assert.ok(items.length >= 3, `${items.length} logs`);
  for (const log of items) {
    const topics = log.topics.filter((t: Hex | null) => t !== null) as [Hex, ...Hex[]];
    const event = Object.values(signatures).find((e) => log.decoded?.method_call.startsWith(`${e.name}(`));
    assert.ok(event, `log ${log.index}: ${JSON.stringify(log.decoded)}`);
    const { args } = decodeEventLog({ abi: [event], topics, data: log.data, strict: true });
    assert.deepEqual(log.decoded, expectedLog(event, topics[0], args), `log ${log.index} of ${log.transaction_hash}`);
  }
});

test('a custom error of the database decodes the revert', async () => {
  const page = await pageOf(sent.withdraw);
  assert.equal(page.status, 'error');
  const data = (
    await chain.client.request<{ traceAddress: number[]; result?: { output?: Hex } }[]>('trace_transaction', [sent.withdraw])
  ).find((t) => t.traceAddress.length === 0)!.result!.output!;
  const error = parseAbiItem('error ERC20InsufficientBalance(address,uint256,uint256)');
  const { args } = decodeErrorResult({ abi: [error], data });
  assert.deepEqual(page.revert_reason, expectedInput(error, data.slice(0, 10), args));
});

test('an unknown selector stays a selector, with decoded_input null', async () => {
  const page = await pageOf(chain.sent.unknownSelector);
  assert.deepEqual([page.method, page.decoded_input], ['0xdeadbeef', null]);
});

test('the method filter takes any name the database knows', async () => {
  const { items } = await collectList(api, '/api/v2/transactions', { method: 'performBuyOrder,pushTerms' });
  assert.deepEqual(items.map((t: any) => t.hash).sort(), [sent.order, sent.terms].sort());
  const all = (await collectList(api, '/api/v2/transactions')).items;
  const transfersFrom = all.filter((t: any) => t.raw_input.startsWith('0x23b872dd')).map((t: any) => t.hash);
  assert.deepEqual(
    (await collectList(api, '/api/v2/transactions', { method: 'transferFrom' })).items.map((t: any) => t.hash),
    transfersFrom,
  );
  const unknown = await api.get('/api/v2/transactions?method=noFunctionIsCalledThis');
  assert.equal(unknown.status, 422);
  assert.deepEqual(
    unknown.body.errors.map((e: any) => e.source.pointer),
    ['/method'],
  );
});

test('token transfers name the method of the transaction that made them', async () => {
  const all = new Map((await collectList(api, '/api/v2/transactions')).items.map((t: any) => [t.hash, t]));
  const { items } = await collectList(api, '/api/v2/token-transfers');
  assert.ok(items.length > 5, `${items.length} transfers`);
  const named = items.filter((transfer: any) => transfer.method !== null && !transfer.method.startsWith('0x'));
  assert.ok(named.length > 5, `${named.length} named`);
  for (const transfer of items) {
    const transaction: any = all.get(transfer.transaction_hash);
    assert.equal(transfer.method, transaction.method, transfer.transaction_hash);
    const embedded = (await pageOf(transfer.transaction_hash)).token_transfers;
    for (const item of embedded) assert.equal(item.method, transaction.method, `embedded in ${transfer.transaction_hash}`);
  }
});

test('a verified ABI wins over the database', async () => {
  const erc20 = chain.scenario.contracts.erc20;
  const code = await chain.client.request<Hex>('eth_getCode', [erc20, 'latest']);
  await storeVerifiedContract(db.pool, erc20, keccak256(code), DemoERC20.abi);
  const { items } = await collectList(api, `/api/v2/addresses/${erc20}/transactions`);
  const transfer = items.find((t: any) => t.raw_input.startsWith('0xa9059cbb') && t.to.hash === erc20);
  assert.equal(transfer.decoded_input.method_call, 'transfer(address to, uint256 value)');
  const logs = (await collectList(api, `/api/v2/transactions/${transfer.hash}/logs`)).items;
  assert.equal(logs[0].decoded.method_call, 'Transfer(address indexed from, address indexed to, uint256 value)');
});
