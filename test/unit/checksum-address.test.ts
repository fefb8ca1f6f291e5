import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import { checksumAddress } from '../../src/api/views/checksum-address.js';

test('checksumAddress gives the EIP-55 form viem gives, for the same address asked again too', () => {
  const addresses = [`0x${'00'.repeat(20)}`, `0x${'ff'.repeat(20)}`, '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'];
  let seed = 7;
  for (let i = 0; i < 2_000; i++) {
    let hex = '';
    for (let j = 0; j < 40; j++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      hex += ((seed >> 16) & 15).toString(16);
    }
    addresses.push(`0x${hex}`);
  }
  for (const address of [...addresses, ...addresses]) assert.equal(checksumAddress(address), getAddress(address));
  assert.equal(checksumAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8'), '0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
});
