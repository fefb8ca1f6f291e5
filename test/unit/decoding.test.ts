import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  type AbiFunction,
  type AbiParameter,
  decodeEventLog,
  decodeFunctionData,
  encodeAbiParameters,
  encodeErrorResult,
  encodeEventTopics,
  encodeFunctionData,
  getAddress,
  keccak256,
  parseAbi,
  toEventSelector,
  toFunctionSelector,
  toHex,
} from 'viem';
import { type Abi, type DecodingAbis, abiEntries, abiOfSignature, decodeCall, decodeLog, decodeRevert } from '../../src/decoding/index.js';
import { DemoCaller, DemoERC1155, DemoERC20, DemoERC721, Multicall3 } from '../../src/demo/artifacts.js';
import type { Hex } from '../../src/model.js';
import { expectedInput } from '../support/expected-decoding.js';

/** Contract ABIs as a contract's own: each decodes as far as its data goes. */
const own = (...abis: Abi[]): DecodingAbis => ({ own: abis, candidates: [] });

// src/decoding against viem's own decoders, on the demo contracts' compiler ABIs and on structs and
// arrays: the parameters viem decodes, written as Blockscout writes them.

const demoAbis = { DemoCaller, DemoERC1155, DemoERC20, DemoERC721, Multicall3 };

/** A sample value of a type, different for each seed. */
function sample(parameter: AbiParameter, seed: number): unknown {
  const array = /^(.*)\[(\d*)\]$/.exec(parameter.type);
  if (array) {
    const length = array[2] === '' ? 2 + (seed % 2) : Number(array[2]);
    return Array.from({ length }, (_, i) => sample({ ...parameter, type: array[1]! }, seed + i + 1));
  }
  const type = parameter.type;
  if (type === 'tuple') {
    const components = (parameter as { components: readonly AbiParameter[] }).components;
    return Object.fromEntries(components.map((c, i) => [c.name, sample(c, seed + i)]));
  }
  if (type === 'address') return getAddress(keccak256(toHex(`address ${seed}`)).slice(0, 42));
  if (type === 'bool') return seed % 2 === 0;
  if (type === 'string') return `text ${seed} ✓`;
  if (type === 'bytes') return keccak256(toHex(seed)).slice(0, 2 + 2 * (1 + (seed % 40)));
  if (type.startsWith('bytes')) return keccak256(toHex(seed)).slice(0, 2 + 2 * Number(type.slice(5)));
  if (type.startsWith('uint')) return BigInt(seed) * 1_000_000_007n;
  if (type.startsWith('int')) return -BigInt(seed) * 7n;
  throw new Error(`no sample for ${type}`);
}

const functionsOf = (abi: readonly unknown[]): AbiFunction[] => abi.filter((i): i is AbiFunction => (i as AbiFunction).type === 'function');

test('every function of the demo ABIs decodes as viem decodes it, in Blockscout’s shape', () => {
  let checked = 0;
  for (const [contract, { abi }] of Object.entries(demoAbis)) {
    for (const [seed, fn] of functionsOf(abi).entries()) {
      const args = fn.inputs.map((input, i) => sample(input, seed * 10 + i));
      const data = encodeFunctionData({ abi: [fn], functionName: fn.name, args });
      const viewed = decodeFunctionData({ abi: abi as readonly AbiFunction[], data });
      assert.equal(viewed.functionName, fn.name);
      assert.deepEqual(decodeCall(own(abi), data), expectedInput(fn, toFunctionSelector(fn), viewed.args!), `${contract}.${fn.name}`);
      checked++;
    }
  }
  assert.ok(checked > 40, `${checked} functions`);
});

const orders = parseAbi([
  'struct Order { address maker; uint256[] amounts; bytes32 tag; bool open; }',
  'function place(Order order, string label, uint8[2] pair, bytes note, Order[] more)',
  'function unnamed(uint256, address, (uint16, bool) pair)',
  'event Placed(address indexed maker, Order order, string indexed label, uint256[2] pair)',
  'error TooLow(uint256 given, uint256 needed, string why)',
]);
const alice = getAddress('0x00000000000000000000000000000000000a11ce');
const order = { maker: alice, amounts: [1n, 2n ** 200n], tag: `0x${'ab'.repeat(32)}` as Hex, open: true };

test('structs, fixed and dynamic arrays and bytes are written as Blockscout writes them', () => {
  const data = encodeFunctionData({ abi: orders, functionName: 'place', args: [order, 'first', [7, 9], '0x0102', [order, order]] });
  const orderValue = [alice, ['1', (2n ** 200n).toString()], `0x${'ab'.repeat(32)}`, 'true'];
  assert.deepEqual(decodeCall(own(orders), data), {
    method_id: data.slice(2, 10),
    method_call:
      'place((address,uint256[],bytes32,bool) order, string label, uint8[2] pair, bytes note, (address,uint256[],bytes32,bool)[] more)',
    parameters: [
      { name: 'order', type: '(address,uint256[],bytes32,bool)', value: orderValue },
      { name: 'label', type: 'string', value: 'first' },
      { name: 'pair', type: 'uint8[2]', value: ['7', '9'] },
      { name: 'note', type: 'bytes', value: '0x0102' },
      { name: 'more', type: '(address,uint256[],bytes32,bool)[]', value: [orderValue, orderValue] },
    ],
  });
});

test('unnamed parameters are arg0, arg1… by their place', () => {
  const data = encodeFunctionData({ abi: orders, functionName: 'unnamed', args: [5n, alice, [3, false]] });
  assert.deepEqual(decodeCall(own(orders), data)?.parameters, [
    { name: 'arg0', type: 'uint256', value: '5' },
    { name: 'arg1', type: 'address', value: alice },
    { name: 'pair', type: '(uint16,bool)', value: ['3', 'false'] },
  ]);
  assert.equal(decodeCall(own(orders), data)?.method_call, 'unnamed(uint256 arg0, address arg1, (uint16,bool) pair)');
});

test('the first ABI, in order, with a function under the selector that decodes the input wins', () => {
  // ERC-20's approve(spender, value) and ERC-721's approve(to, tokenId) share their selector.
  const data = encodeFunctionData({ abi: DemoERC20.abi, functionName: 'approve', args: [alice, 10n] });
  assert.equal(decodeCall(own(DemoERC20.abi, DemoERC721.abi), data)?.method_call, 'approve(address spender, uint256 value)');
  assert.equal(decodeCall(own(DemoERC721.abi, DemoERC20.abi), data)?.method_call, 'approve(address to, uint256 tokenId)');
  // An ABI without the selector is passed over.
  assert.equal(decodeCall(own(DemoCaller.abi, DemoERC721.abi), data)?.method_call, 'approve(address to, uint256 tokenId)');
  // Arguments too short for the parameters decode with none.
  assert.equal(decodeCall(own(DemoERC20.abi), data.slice(0, 40) as Hex), null);
  assert.equal(decodeCall(own(DemoERC20.abi), '0xdeadbeef'), null, 'an unknown selector');
  assert.equal(decodeCall(own(DemoERC20.abi), '0x095ea7'), null, 'shorter than a selector');
  assert.equal(decodeCall(own(), data), null);
});

test('malformed entries of an ABI are passed over, the rest still decode', () => {
  const abi: Abi = [
    null,
    { type: 'function' },
    { type: 'function', name: 'bad', inputs: [{ type: 'uint257' }] },
    { type: 'function', name: 'odd', inputs: 'none' },
    { type: 'constructor', inputs: [] },
    { type: 'fallback' },
    { type: 'receive' },
    ...DemoERC20.abi,
  ];
  const data = encodeFunctionData({ abi: DemoERC20.abi, functionName: 'transfer', args: [alice, 1n] });
  assert.equal(decodeCall(own(abi), data)?.method_call, 'transfer(address to, uint256 value)');
  assert.deepEqual(abiEntries(abi), abiEntries(DemoERC20.abi));
});

test('abiEntries: every function, event and error with its 4-byte selector, no constructor', () => {
  for (const [contract, { abi }] of Object.entries(demoAbis)) {
    const expected = (abi as readonly any[]).flatMap((item) => {
      if (item.type === 'function' || item.type === 'error') return [{ selector: toFunctionSelector(item), type: item.type, item }];
      if (item.type === 'event') return [{ selector: toEventSelector(item).slice(0, 10), type: item.type, item }];
      return [];
    });
    assert.deepEqual(abiEntries(abi), expected, contract);
    assert.ok(expected.length < abi.length || !abi.some((i) => i.type === 'constructor'), `${contract}: its constructor is left out`);
  }
});

test('logs decode as viem decodes them; an indexed string is its topic, as Blockscout sends it', () => {
  const placed = orders.find((i) => i.type === 'event')!;
  const topics = encodeEventTopics({ abi: orders, eventName: 'Placed', args: { maker: alice, label: 'first' } }) as Hex[];
  const data = encodeAbiParameters(
    placed.inputs.filter((i) => !('indexed' in i && i.indexed)),
    [order, [3n, 4n]],
  );
  const viewed = decodeEventLog({ abi: orders, topics: topics as [Hex, ...Hex[]], data });
  assert.equal((viewed.args as any).label, keccak256(toHex('first')));
  assert.deepEqual(decodeLog(own(orders), [...topics, null], data), {
    method_id: toEventSelector(placed).slice(2, 10),
    method_call: 'Placed(address indexed maker, (address,uint256[],bytes32,bool) order, string indexed label, uint256[2] pair)',
    parameters: [
      { name: 'maker', type: 'address', indexed: true, value: alice },
      {
        name: 'order',
        type: '(address,uint256[],bytes32,bool)',
        indexed: false,
        value: [alice, ['1', (2n ** 200n).toString()], `0x${'ab'.repeat(32)}`, 'true'],
      },
      { name: 'label', type: 'string', indexed: true, value: keccak256(toHex('first')) },
      { name: 'pair', type: 'uint256[2]', indexed: false, value: ['3', '4'] },
    ],
  });
});

test('a log of the shape of another event under the same topic takes the event that decodes it', () => {
  // ERC-20's Transfer (value in data) and ERC-721's (tokenId indexed) share their topic.
  const topics = encodeEventTopics({
    abi: DemoERC20.abi,
    eventName: 'Transfer',
    args: { from: alice, to: getAddress(`0x${'22'.repeat(20)}`) },
  });
  const data = encodeAbiParameters([{ type: 'uint256' }], [25n]);
  const viewed = decodeEventLog({ abi: DemoERC20.abi, topics: topics as [Hex, ...Hex[]], data });
  const decoded = decodeLog(own(DemoERC721.abi, DemoERC20.abi), topics as Hex[], data);
  assert.deepEqual(decoded, {
    method_id: 'ddf252ad',
    method_call: 'Transfer(address indexed from, address indexed to, uint256 value)',
    parameters: [
      { name: 'from', type: 'address', indexed: true, value: (viewed.args as any).from },
      { name: 'to', type: 'address', indexed: true, value: (viewed.args as any).to },
      { name: 'value', type: 'uint256', indexed: false, value: '25' },
    ],
  });
  assert.equal(decodeLog(own(DemoERC721.abi), topics as Hex[], data), null, "ERC-721's Transfer needs a third indexed topic");
  assert.equal(decodeLog(own(DemoERC20.abi), [], '0x'), null, 'a log without topics');
  assert.equal(decodeLog(own(DemoERC20.abi), [`0x${'00'.repeat(32)}`], data), null, 'an unknown topic');
});

test('revert data: Error(string), Panic(uint256), then the ABIs’ errors', () => {
  const error = encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: ['no way'] });
  assert.deepEqual(decodeRevert(own(), error), {
    method_id: '08c379a0',
    method_call: 'Error(string reason)',
    parameters: [{ name: 'reason', type: 'string', value: 'no way' }],
  });
  const panic = encodeErrorResult({ abi: parseAbi(['error Panic(uint256)']), errorName: 'Panic', args: [0x11n] });
  assert.deepEqual(decodeRevert(own(DemoCaller.abi), panic), {
    method_id: '4e487b71',
    method_call: 'Panic(uint256 errorCode)',
    parameters: [{ name: 'errorCode', type: 'uint256', value: '17' }],
  });
  const custom = encodeErrorResult({ abi: orders, errorName: 'TooLow', args: [3n, 10n, 'too low'] });
  assert.deepEqual(decodeRevert(own(DemoCaller.abi, orders), custom), {
    method_id: custom.slice(2, 10),
    method_call: 'TooLow(uint256 given, uint256 needed, string why)',
    parameters: [
      { name: 'given', type: 'uint256', value: '3' },
      { name: 'needed', type: 'uint256', value: '10' },
      { name: 'why', type: 'string', value: 'too low' },
    ],
  });
  const failedCall = encodeErrorResult({ abi: DemoCaller.abi, errorName: 'FailedCall' });
  assert.deepEqual(decodeRevert(own(DemoCaller.abi), failedCall), {
    method_id: failedCall.slice(2),
    method_call: 'FailedCall()',
    parameters: [],
  });
  assert.equal(decodeRevert(own(DemoCaller.abi), custom), null, 'an error no ABI has');
  assert.equal(
    decodeRevert(own(orders), encodeFunctionData({ abi: orders, functionName: 'unnamed', args: [1n, alice, [1, true]] })),
    null,
    'a function is not an error',
  );
});

/** Signatures of the database as candidates, in the order the store hands them over. */
const candidates = (...signatures: string[]): DecodingAbis => ({ own: [], candidates: signatures.map(abiOfSignature) });

test('of several signatures under one selector, the one whose types fit the data wins; the contract’s own ABI before any', () => {
  // Four signatures of 4byte databases share transfer's selector.
  const shared = candidates(
    'function func_2093253501(bytes)',
    'function join_tg_invmru_haha_fd06787(address,bool)',
    'function many_msg_babbage(bytes1)',
    'function transfer(address,uint256)',
  );
  const data = encodeFunctionData({ abi: DemoERC20.abi, functionName: 'transfer', args: [alice, 10n] });
  const viewed = decodeFunctionData({ abi: parseAbi(['function transfer(address,uint256)']), data });
  assert.deepEqual(decodeCall(shared, data), {
    method_id: 'a9059cbb',
    method_call: 'transfer(address arg0, uint256 arg1)',
    parameters: [
      { name: 'arg0', type: 'address', value: viewed.args[0] },
      { name: 'arg1', type: 'uint256', value: viewed.args[1].toString() },
    ],
  });
  // Bytes after the arguments: the types that explain the arguments still win over one that merely decodes.
  assert.equal(decodeCall(shared, `${data}cafe0000`)?.method_call, 'transfer(address arg0, uint256 arg1)');
  // A bool of 1 fits as well as a uint256: the first in order wins, every time.
  const one = encodeFunctionData({ abi: DemoERC20.abi, functionName: 'transfer', args: [alice, 1n] });
  assert.equal(decodeCall(shared, one)?.method_call, 'join_tg_invmru_haha_fd06787(address arg0, bool arg1)');
  assert.equal(
    decodeCall({ own: [DemoERC20.abi], candidates: shared.candidates }, one)?.method_call,
    'transfer(address to, uint256 value)',
  );
  assert.equal(decodeCall(candidates('function approve(address,uint256)'), data), null, 'no signature under the selector');
});

test('an event signature says nothing of which parameters are indexed: the layout that fits the log is found', () => {
  const transfer = candidates('event Transfer(address,address,uint256)');
  const bob = getAddress(`0x${'22'.repeat(20)}`);
  const erc20Topics = encodeEventTopics({ abi: DemoERC20.abi, eventName: 'Transfer', args: { from: alice, to: bob } }) as Hex[];
  const value = encodeAbiParameters([{ type: 'uint256' }], [25n]);
  assert.equal(decodeLog(transfer, erc20Topics, value)?.method_call, 'Transfer(address indexed arg0, address indexed arg1, uint256 arg2)');
  const erc721Topics = encodeEventTopics({
    abi: DemoERC721.abi,
    eventName: 'Transfer',
    args: { from: alice, to: bob, tokenId: 7n },
  }) as Hex[];
  assert.deepEqual(decodeLog(transfer, erc721Topics, '0x')?.parameters, [
    { name: 'arg0', type: 'address', indexed: true, value: alice },
    { name: 'arg1', type: 'address', indexed: true, value: bob },
    { name: 'arg2', type: 'uint256', indexed: true, value: '7' },
  ]);
  // The indexed parameter second: the first parameter taken as indexed would read the data's offset as an address.
  const deposited = parseAbi(['event Deposited(bytes note, address indexed user)']);
  const topics = encodeEventTopics({ abi: deposited, eventName: 'Deposited', args: { user: alice } }) as Hex[];
  const data = encodeAbiParameters([{ type: 'bytes' }], ['0x0102030405']);
  assert.deepEqual(decodeLog(candidates('event Deposited(bytes,address)'), topics, data)?.parameters, [
    { name: 'arg0', type: 'bytes', indexed: false, value: '0x0102030405' },
    { name: 'arg1', type: 'address', indexed: true, value: alice },
  ]);
  assert.equal(decodeLog(transfer, [...erc721Topics, erc721Topics[1]!], '0x'), null, 'more topics than parameters');
});

test('a custom error of the database decodes revert data', () => {
  const abi = parseAbi(['error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)']);
  const data = encodeErrorResult({ abi, errorName: 'ERC20InsufficientBalance', args: [alice, 1n, 2n] });
  assert.deepEqual(decodeRevert(candidates('error ERC20InsufficientBalance(address,uint256,uint256)'), data), {
    method_id: data.slice(2, 10),
    method_call: 'ERC20InsufficientBalance(address arg0, uint256 arg1, uint256 arg2)',
    parameters: [
      { name: 'arg0', type: 'address', value: alice },
      { name: 'arg1', type: 'uint256', value: '1' },
      { name: 'arg2', type: 'uint256', value: '2' },
    ],
  });
});
