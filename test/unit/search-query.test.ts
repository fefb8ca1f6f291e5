import { test } from 'node:test';
import assert from 'node:assert/strict';
import { balancedCounts, parseSearchQuery } from '../../src/api/search-query.js';

// How a search query is read (Blockscout's Explorer.Chain.Search), and how quick search shares its 50 places out.

test('a 0x address or 32-byte hash, in any case and with or without 0x, is that, lowercased', () => {
  const address = '0xAbCdEf0123456789abcdef0123456789ABCDEF01';
  assert.deepEqual(parseSearchQuery(address), { kind: 'address', address: address.toLowerCase() });
  assert.deepEqual(parseSearchQuery(`  ${address.slice(2)} `), { kind: 'address', address: address.toLowerCase() });
  const hash = `0x${'Ab'.repeat(32)}`;
  assert.deepEqual(parseSearchQuery(hash), { kind: 'hash', hash: hash.toLowerCase() });
  assert.deepEqual(parseSearchQuery(hash.slice(2)), { kind: 'hash', hash: hash.toLowerCase() });
});

test('a block number is a block alone under three digits, a block and token words from three on', () => {
  assert.deepEqual(parseSearchQuery('7'), { kind: 'number', number: 7n, words: null });
  assert.deepEqual(parseSearchQuery(' 42 '), { kind: 'number', number: 42n, words: null });
  assert.deepEqual(parseSearchQuery('100'), { kind: 'number', number: 100n, words: '100:*' });
  // Beyond PostgreSQL's bigint, no block has the number: words only.
  assert.deepEqual(parseSearchQuery('99999999999999999999'), { kind: 'words', words: '99999999999999999999:*' });
});

test('words: each run of letters and digits a prefix, all required; nothing under three characters or without a letter or digit', () => {
  assert.deepEqual(parseSearchQuery('Tether USD'), { kind: 'words', words: 'Tether:* & USD:*' });
  assert.deepEqual(parseSearchQuery('vitalik.eth'), { kind: 'words', words: 'vitalik:* & eth:*' });
  // tsquery operators and quotes are separators, never syntax.
  assert.deepEqual(parseSearchQuery("a&b|!c:*'d"), { kind: 'words', words: 'a:* & b:* & c:* & d:*' });
  assert.deepEqual(parseSearchQuery('0x12'), { kind: 'words', words: '0x12:*' });
  assert.deepEqual(parseSearchQuery('ab'), { kind: 'none' });
  assert.deepEqual(parseSearchQuery('  ab  '), { kind: 'none' });
  assert.deepEqual(parseSearchQuery('%%%%'), { kind: 'none' });
  assert.deepEqual(parseSearchQuery('日本語'), { kind: 'none' });
});

test("quick search's shares: fewest first, equal shares of what is left, as Blockscout's example gives them", () => {
  // Blockscout's own example: 1 address, 1 transaction, 2 blocks, 50 tokens, 50 contracts, 50 labels.
  assert.deepEqual(balancedCounts([50, 50, 50, 1, 1, 2], 50), [16, 15, 15, 1, 1, 2]);
  assert.deepEqual(balancedCounts([1, 50], 50), [1, 49]);
  assert.deepEqual(balancedCounts([30, 40, 50], 50), [17, 17, 16]);
  assert.deepEqual(balancedCounts([3, 4], 50), [3, 4]);
  assert.deepEqual(balancedCounts([0, 60], 50), [0, 50]);
  assert.deepEqual(balancedCounts([], 50), []);
  for (const lengths of [
    [7, 0, 90, 13],
    [50, 50],
    [1, 1, 1, 100],
  ]) {
    const counts = balancedCounts(lengths, 50);
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      Math.min(
        50,
        lengths.reduce((a, b) => a + b, 0),
      ),
    );
    counts.forEach((count, i) => assert.ok(count <= lengths[i]!));
  }
});
