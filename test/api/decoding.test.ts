import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  type Abi,
  type AbiEvent,
  type AbiFunction,
  decodeErrorResult,
  decodeEventLog,
  decodeFunctionData,
  parseAbi,
  toEventSelector,
  toFunctionSelector,
} from 'viem';
import { DemoCaller, DemoERC1155, DemoERC20, DemoERC721 } from '../../src/demo/artifacts.js';
import type { Hex } from '../../src/model.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import {
  type DecodingChain,
  indexAndTrace,
  startDecodingChain,
  storeContractCodes,
  storeVerifiedContract,
} from '../support/decoding-chain.js';
import { expectedInput, expectedLog } from '../support/expected-decoding.js';
import { knownMethodNames } from '../support/expected-json.js';
import { type RunningApi, collectList, startApi } from './http.js';

// Calls, logs and revert reasons of a chain decoded with verified ABIs: the demo scenario and a probe
// contract (structs, arrays, an indexed string, unnamed parameters, custom errors) deployed twice.
// The expected side decodes with viem, choosing the ABI as the rule says: the contract's own verified
// ABI, else its bytecode twin's, else the items of every verified ABI under the selector.

let chain: DecodingChain;
let db: TestDatabase;
let api: RunningApi;

const lower = (address: string) => address.toLowerCase();
/** Verified ABIs by address, in the order they were verified. */
const verified = new Map<string, Abi>();
/** Every contract's runtime code hash, read from the node. */
const codeHashes = new Map<string, Hex>();

async function verify(address: string, abi: Abi): Promise<void> {
  await storeVerifiedContract(db.pool, address, codeHashes.get(lower(address))!, abi);
  verified.set(lower(address), abi);
}

/** The contract's own verified ABI, else its bytecode twin's (the first verified with its code hash). */
function abisOf(address: string): Abi[] {
  const own = verified.get(lower(address));
  if (own) return [own];
  const hash = codeHashes.get(lower(address));
  const twin = [...verified.keys()].find((other) => hash !== undefined && codeHashes.get(other) === hash);
  return twin === undefined ? [] : [verified.get(twin)!];
}

/** The distinct items of every verified ABI under a 4-byte selector, each as a one-item ABI. */
function candidates(type: 'function' | 'event' | 'error', selector: string): Abi[] {
  const items = new Map<string, Abi>();
  for (const abi of verified.values()) {
    for (const item of abi) {
      if (item.type !== type) continue;
      const itemSelector = type === 'event' ? toEventSelector(item as AbiEvent).slice(0, 10) : toFunctionSelector(item as AbiFunction);
      if (itemSelector === selector) items.set(JSON.stringify(item), [item]);
    }
  }
  return [...items.values()];
}

/** The one decoding of the candidates that works: two different ones would make the chain ambiguous for this test. */
function single<T>(results: T[], what: string): T | null {
  const distinct = new Map(results.map((r) => [JSON.stringify(r), r]));
  assert.ok(distinct.size <= 1, `${what}: candidates decode it in ${distinct.size} ways`);
  return results[0] ?? null;
}

function decodedCall(abi: Abi, input: Hex) {
  try {
    const { args } = decodeFunctionData({ abi, data: input });
    const item = abi.find((i) => i.type === 'function' && toFunctionSelector(i as AbiFunction) === input.slice(0, 10)) as AbiFunction;
    return expectedInput(item, input.slice(0, 10), args ?? []);
  } catch {
    return null;
  }
}

function expectedDecodedInput(to: string | null, toIsContract: boolean, input: Hex) {
  if (to === null || !toIsContract || input.length < 10) return null;
  for (const abi of abisOf(to)) {
    const decoded = decodedCall(abi, input);
    if (decoded !== null) return decoded;
  }
  return single(
    candidates('function', input.slice(0, 10)).flatMap((abi) => decodedCall(abi, input) ?? []),
    input,
  );
}

const expectedMethod = (decoded: { method_call: string } | null, toIsContract: boolean, input: Hex): string | null => {
  if (decoded !== null) return decoded.method_call.split('(')[0]!;
  if (!toIsContract || input.length < 10) return null;
  return knownMethodNames[input.slice(0, 10)] ?? input.slice(0, 10);
};

function decodedLog(abi: Abi, topics: Hex[], data: Hex) {
  try {
    const { args } = decodeEventLog({ abi, topics: topics as [Hex, ...Hex[]], data, strict: true });
    const item = abi.find((i) => i.type === 'event' && toEventSelector(i as AbiEvent) === topics[0]) as AbiEvent;
    return expectedLog(item, topics[0]!, args);
  } catch {
    return null;
  }
}

function expectedDecodedLog(address: string, topics: (Hex | null)[], data: Hex) {
  const present = topics.filter((t): t is Hex => t !== null);
  if (present.length === 0) return null;
  for (const abi of abisOf(address)) {
    const decoded = decodedLog(abi, present, data);
    if (decoded !== null) return decoded;
  }
  return single(
    candidates('event', present[0]!.slice(0, 10)).flatMap((abi) => decodedLog(abi, present, data) ?? []),
    present[0]!,
  );
}

const solidityErrors = parseAbi(['error Error(string reason)', 'error Panic(uint256 errorCode)']);

function decodedError(abi: Abi, data: Hex) {
  try {
    const { abiItem, args } = decodeErrorResult({ abi, data });
    return expectedInput(abiItem as AbiFunction, data.slice(0, 10), args ?? []);
  } catch {
    return null;
  }
}

/** A reverted transaction's revert_reason on its page: Error(string), Panic(uint256), the contract's errors, candidates; else the raw data. */
function expectedRevertReason(to: string | null, toIsContract: boolean, data: Hex | null) {
  if (data === null || data.length < 10) return { raw: data };
  const abis = [solidityErrors, ...(to === null ? [] : abisOf(to))];
  for (const abi of abis) {
    const decoded = decodedError(abi, data);
    if (decoded !== null) return decoded;
  }
  const fromCandidates = toIsContract
    ? single(
        candidates('error', data.slice(0, 10)).flatMap((abi) => decodedError(abi, data) ?? []),
        data,
      )
    : null;
  return fromCandidates ?? { raw: data };
}

/** The data the transaction's top call reverted with, as the node's trace reports it. */
async function nodeRevertData(hash: Hex): Promise<Hex | null> {
  const traces = await chain.client.request<{ traceAddress: number[]; error?: string; result?: { output?: Hex } | null }[]>(
    'trace_transaction',
    [hash],
  );
  const top = traces.find((t) => t.traceAddress.length === 0)!;
  const output = top.result?.output;
  return top.error !== undefined && output !== undefined && output !== '0x' ? output : null;
}

before(async () => {
  chain = await startDecodingChain();
  db = await createTestDatabase();
  const head = await indexAndTrace(chain.client, db);
  for (const [address, hash] of await storeContractCodes(db.pool, chain.client, head)) codeHashes.set(address, hash);
  const { contracts: demo } = chain.scenario;
  // The ERC-20 token and the probe's second deployment stay unverified.
  await verify(demo.erc721, DemoERC721.abi);
  await verify(demo.erc1155, DemoERC1155.abi);
  await verify(demo.caller, DemoCaller.abi);
  await verify(chain.probes.first, chain.probe.abi);
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
  await chain?.anvil.stop();
});

const isContract = (party: { is_contract: boolean } | null) => party?.is_contract === true;

test("every transaction's decoded_input and method, in every list and on its page, are viem's decoding with the ABI that applies", async () => {
  const { items } = await collectList(api, '/api/v2/transactions');
  assert.ok(items.length > 80, `${items.length} transactions`);
  const byHash = new Map(items.map((t: any) => [t.hash, t]));
  let decoded = 0;
  for (const t of items) {
    const expected = expectedDecodedInput(t.to?.hash ?? null, isContract(t.to), t.raw_input);
    assert.deepEqual(t.decoded_input, expected, `decoded_input of ${t.hash}`);
    assert.equal(t.method, expectedMethod(expected, isContract(t.to), t.raw_input), `method of ${t.hash}`);
    if (expected !== null) decoded++;
    const page = (await api.get(`/api/v2/transactions/${t.hash}`)).body;
    assert.deepEqual([page.decoded_input, page.method], [t.decoded_input, t.method], `the page of ${t.hash}`);
  }
  assert.ok(decoded > 20, `${decoded} decoded`);
  // The other lists render the same items.
  const blocks = new Set(items.map((t: any) => t.block_number));
  for (const block of blocks) {
    for (const t of (await collectList(api, `/api/v2/blocks/${block}/transactions`)).items) {
      const listed = byHash.get(t.hash) as any;
      assert.deepEqual([t.decoded_input, t.method], [listed.decoded_input, listed.method], `block ${block}: ${t.hash}`);
    }
  }
  for (const address of [chain.probes.first, chain.probes.twin, chain.scenario.contracts.erc20, chain.scenario.contracts.caller]) {
    for (const t of (await collectList(api, `/api/v2/addresses/${address}/transactions`)).items) {
      const listed = byHash.get(t.hash) as any;
      assert.deepEqual([t.decoded_input, t.method], [listed.decoded_input, listed.method], `${address}: ${t.hash}`);
    }
  }
  for (const t of (await api.get('/api/v2/main-page/transactions')).body) {
    const listed = byHash.get(t.hash) as any;
    assert.deepEqual([t.decoded_input, t.method], [listed.decoded_input, listed.method], `main page: ${t.hash}`);
  }
});

test("every log's decoded, of a transaction's logs and of an address's, is viem's decoding with the ABI that applies", async () => {
  const { items: transactions } = await collectList(api, '/api/v2/transactions');
  const emitters = new Set<string>();
  let logs = 0;
  let decoded = 0;
  for (const t of transactions) {
    for (const log of (await collectList(api, `/api/v2/transactions/${t.hash}/logs`)).items) {
      const expected = expectedDecodedLog(log.address.hash, log.topics, log.data);
      assert.deepEqual(log.decoded, expected, `log ${log.index} of ${t.hash}`);
      emitters.add(log.address.hash);
      logs++;
      if (expected !== null) decoded++;
    }
  }
  assert.ok(decoded > 10 && decoded < logs, `${decoded} of ${logs} logs decoded`);
  for (const address of emitters) {
    for (const log of (await collectList(api, `/api/v2/addresses/${address}/logs`)).items) {
      assert.deepEqual(log.decoded, expectedDecodedLog(address, log.topics, log.data), `log ${log.index} of ${address}`);
    }
  }
});

test("a reverted transaction's page decodes its revert reason: Error(string), a custom error, else the raw data", async () => {
  const { items } = await collectList(api, '/api/v2/transactions');
  const reverted = items.filter((t: any) => t.status === 'error');
  assert.ok(reverted.length >= 4, `${reverted.length} reverted`);
  for (const t of reverted) {
    const page = (await api.get(`/api/v2/transactions/${t.hash}`)).body;
    const data = await nodeRevertData(t.hash);
    assert.deepEqual(page.revert_reason, expectedRevertReason(t.to?.hash ?? null, isContract(t.to), data), t.hash);
    // A list shows the raw data, as Blockscout's does.
    assert.deepEqual(t.revert_reason, { raw: data });
  }
  const pageOf = async (hash: Hex) => (await api.get(`/api/v2/transactions/${hash}`)).body;
  assert.deepEqual((await pageOf(chain.sent.tooLow)).revert_reason, {
    method_id: toFunctionSelector('error TooLow(uint256,uint256,string)').slice(2),
    method_call: 'TooLow(uint256 given, uint256 needed, string why)',
    parameters: [
      { name: 'given', type: 'uint256', value: '3' },
      { name: 'needed', type: 'uint256', value: '10' },
      { name: 'why', type: 'string', value: 'too low' },
    ],
  });
  assert.deepEqual((await pageOf(chain.sent.failed)).revert_reason, {
    method_id: '08c379a0',
    method_call: 'Error(string reason)',
    parameters: [{ name: 'reason', type: 'string', value: 'it had to fail' }],
  });
  assert.equal((await pageOf(chain.scenario.revertedTxHash)).revert_reason.method_call, 'Error(string reason)');
});

test('the rule at work: own ABI, bytecode twin, candidates of contract_methods, unknown selector', async () => {
  const pageOf = async (hash: Hex) => (await api.get(`/api/v2/transactions/${hash}`)).body;
  const placed = await pageOf(chain.sent.placed);
  assert.equal(placed.method, 'place');
  assert.match(placed.decoded_input.method_call, /^place\(\(address,uint256\[\],bytes32,bool\) order, string label/);
  const twin = await pageOf(chain.sent.placedOnTwin);
  assert.equal(twin.to.hash, chain.probes.twin);
  assert.equal(twin.decoded_input.method_call, placed.decoded_input.method_call, "the twin's call takes the verified probe's ABI");
  const unnamed = await pageOf(chain.sent.unnamed);
  assert.deepEqual(
    unnamed.decoded_input.parameters.map((p: any) => p.name),
    ['arg0', 'arg1'],
  );
  const unknown = await pageOf(chain.sent.unknownSelector);
  assert.deepEqual([unknown.method, unknown.decoded_input], ['0xdeadbeef', null]);
  // The unverified ERC-20's approve shares its selector with ERC-721's, a candidate of contract_methods.
  const { items } = await collectList(api, `/api/v2/addresses/${chain.scenario.contracts.erc20}/transactions`);
  const approve = items.find((t: any) => t.raw_input.startsWith('0x095ea7b3'));
  assert.equal(approve.decoded_input.method_call, 'approve(address to, uint256 tokenId)');
  const transfer = items.find((t: any) => t.raw_input.startsWith('0xa9059cbb') && t.to.hash === chain.scenario.contracts.erc20);
  assert.deepEqual([transfer.method, transfer.decoded_input], ['transfer', null], 'no verified ABI has transfer(address,uint256)');
});

test('a verification that lands is used by the next answer', async () => {
  const erc20 = chain.scenario.contracts.erc20;
  const before = await collectList(api, `/api/v2/addresses/${erc20}/transactions`);
  const transfer = before.items.find((t: any) => t.raw_input.startsWith('0xa9059cbb') && t.to.hash === erc20);
  assert.equal(transfer.decoded_input, null);
  await verify(erc20, DemoERC20.abi);
  const page = (await api.get(`/api/v2/transactions/${transfer.hash}`)).body;
  assert.equal(page.decoded_input.method_call, 'transfer(address to, uint256 value)');
  const logs = (await collectList(api, `/api/v2/transactions/${transfer.hash}/logs`)).items;
  assert.equal(logs[0].decoded.method_call, 'Transfer(address indexed from, address indexed to, uint256 value)');
  const approve = (await collectList(api, `/api/v2/addresses/${erc20}/transactions`)).items.find((t: any) =>
    t.raw_input.startsWith('0x095ea7b3'),
  );
  assert.equal(approve.decoded_input.method_call, 'approve(address spender, uint256 value)', 'its own ABI comes before candidates');
});
