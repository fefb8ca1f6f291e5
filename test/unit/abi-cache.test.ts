import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { AbiCache, ENTRY_OVERHEAD_BYTES } from '../../src/api/abi-cache.js';

// The API's parsed ABIs (src/api/abi-cache.ts): kept by the hash of their JSON (or their signature), least recently used out first beyond a byte budget.

/** What an entry of `bytes` characters counts against the budget. */
const cost = (bytes: number): number => bytes + ENTRY_OVERHEAD_BYTES;

/** An ABI's JSON of exactly `bytes` characters, as the store hands it over with its MD5. */
function stored(name: string, bytes: number) {
  const prefix = `[{"type":"function","name":"${name}","inputs":[],"pad":"`;
  const json = `${prefix}${'x'.repeat(bytes - prefix.length - 3)}"}]`;
  assert.equal(json.length, bytes);
  return { json, key: createHash('md5').update(json).digest('hex') };
}

test('the same content is parsed once; the least recently used goes first beyond the budget', () => {
  const cache = new AbiCache(2 * cost(100) + 50);
  const [a, b, c] = [stored('a', 100), stored('b', 100), stored('c', 100)];
  const a1 = cache.parsed(a);
  assert.deepEqual(a1, JSON.parse(a.json));
  const b1 = cache.parsed(b);
  assert.equal(cache.parsed(a), a1, 'a hit hands back the parsed object');
  const c1 = cache.parsed(c);
  // Three entries: b, the least recently used, went.
  assert.equal(cache.parsed(a), a1);
  const b2 = cache.parsed(b);
  assert.notEqual(b2, b1, 'b was parsed again');
  assert.deepEqual(b2, b1);
  // Taking b back in pushed out c, now the least recently used.
  assert.notEqual(cache.parsed(c), c1);
});

test('an ABI larger than the whole budget is parsed every time and evicts nothing', () => {
  const cache = new AbiCache(cost(100));
  const small = stored('small', 90);
  const kept = cache.parsed(small);
  const big = stored('big', 150);
  const big1 = cache.parsed(big);
  assert.notEqual(cache.parsed(big), big1);
  assert.equal(cache.parsed(small), kept);
});

test('a signature is parsed into a one-item ABI, kept under the signature', () => {
  const cache = new AbiCache(cost(100));
  const signature = { key: 'function transfer(address,uint256)', signature: 'function transfer(address,uint256)' };
  const abi = cache.parsed(signature);
  assert.deepEqual(abi, [
    {
      type: 'function',
      name: 'transfer',
      inputs: [{ type: 'address' }, { type: 'uint256' }],
      outputs: [],
      stateMutability: 'nonpayable',
    },
  ]);
  assert.equal(cache.parsed(signature), abi);
  assert.deepEqual(cache.parsed({ key: 'function f(uint7)', signature: 'function f(uint7)' }), [], 'a type viem does not know');
});
