import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keccak_256 } from '@noble/hashes/sha3';
import { knownMethodName, knownMethodSelectors, methodSelector } from '../../src/api/known-methods.js';

// The `method` filter of E2 (src/api/known-methods.ts): a known method name or a 4-byte selector.

/** The first four bytes of keccak-256 of a function signature. */
const selectorOf = (signature: string) => `0x${Buffer.from(keccak_256(signature)).subarray(0, 4).toString('hex')}`;

test("the known names' selectors are those of their usual signatures", () => {
  assert.deepEqual(knownMethodSelectors, {
    approve: selectorOf('approve(address,uint256)'),
    transfer: selectorOf('transfer(address,uint256)'),
    multicall: selectorOf('multicall(uint256,bytes[])'),
    mint: selectorOf('mint(address,uint256)'),
    commit: selectorOf('commit(bytes32)'),
  });
});

test('a selector is named when it is known, and only then', () => {
  assert.equal(knownMethodName('0xa9059cbb'), 'transfer');
  assert.equal(knownMethodName('0x095ea7b3'), 'approve');
  assert.equal(knownMethodName('0x23b872dd'), undefined, 'transferFrom is not in the table');
});

test('a filter value is a known name or 8 hex digits, 0x optional, in any case; the selector comes out lowercase', () => {
  assert.equal(methodSelector('transfer'), '0xa9059cbb');
  assert.equal(methodSelector('0x23B872DD'), '0x23b872dd');
  assert.equal(methodSelector('23b872dd'), '0x23b872dd');
  for (const value of ['Transfer', '0x23b872d', '0x23b872dd00', '0X23b872dd', 'transferFrom', '', '0x', 'toString', '__proto__']) {
    assert.equal(methodSelector(value), undefined, JSON.stringify(value));
  }
});
