import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, keccak256, labelhash, namehash, pad } from 'viem';
import { ensEventParties, ensEventTopics, reverseNode } from '../../src/chain/ens.js';
import { ensNameQuery } from '../../src/api/search-query.js';
import { TagsFileError, parseTagsFile } from '../../src/offchain/address-tags-file.js';

const address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

test("an address's reverse node is the namehash of its hex under addr.reverse", () => {
  assert.equal(reverseNode(address), namehash('70997970c51812dc3a010c7d01b50e0d17dc79c8.addr.reverse'));
  assert.equal(reverseNode('0x70997970C51812dc3A010C7d01b50e0d17dc79C8'), reverseNode(address));
});

test('ENS events name the addresses and nodes whose names they change', () => {
  const node = namehash('alice.eth');
  const other = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
  const parties = ensEventParties([
    { topics: [ensEventTopics.reverseClaimed, pad(address), reverseNode(address)], data: '0x' },
    { topics: [ensEventTopics.addrChanged, node], data: pad(other) },
    { topics: [ensEventTopics.newOwner, namehash('eth'), labelhash('bob')], data: pad(other) },
    { topics: [ensEventTopics.nameChanged, reverseNode(other)], data: '0x' },
    // An AddrChanged to the zero address names nobody; a log without a node is skipped.
    { topics: [ensEventTopics.addrChanged, node], data: pad('0x00') },
    { topics: [ensEventTopics.newResolver], data: '0x' },
  ]);
  assert.deepEqual(parties.addresses, [address, other]);
  assert.deepEqual(parties.nodes, [
    reverseNode(address),
    node,
    namehash('eth'),
    keccak256(concat([namehash('eth'), labelhash('bob')])),
    reverseNode(other),
    node,
  ]);
  assert.equal(keccak256(concat([namehash('eth'), labelhash('bob')])), namehash('bob.eth'));
});

test('a search query is an ENS name when it is dotted labels without blanks, lowercased', () => {
  assert.equal(ensNameQuery(' Alice.ETH '), 'alice.eth');
  assert.equal(ensNameQuery('sub.alice.eth'), 'sub.alice.eth');
  for (const q of ['alice', 'alice.', '.eth', 'alice..eth', 'alice eth.x', '1.5 x']) assert.equal(ensNameQuery(q), null, q);
});

test('the tags file: defaults filled in, addresses lowercased', () => {
  const tags = parseTagsFile(
    JSON.stringify([
      { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', label: 'Hot Wallet #1', tag_type: 'public' },
      { address, label: 'x', tag_type: 'protocol', slug: 'proto', ordinal: -3, meta: { bgColor: '#fff' } },
    ]),
  );
  assert.deepEqual(tags, [
    { address, slug: 'hot-wallet-1', name: 'Hot Wallet #1', tagType: 'public', ordinal: 0, meta: null },
    { address, slug: 'proto', name: 'x', tagType: 'protocol', ordinal: -3, meta: { bgColor: '#fff' } },
  ]);
});

test('a tags file that does not fit is rejected whole, naming the entry and member', () => {
  const rejected = (text: string, message: RegExp) =>
    assert.throws(
      () => parseTagsFile(text),
      (e: unknown) => e instanceof TagsFileError && message.test(e.message),
    );
  rejected('{', /not JSON/);
  rejected('{}', /array/);
  rejected(
    JSON.stringify([
      { address, label: 'a', tag_type: 'name' },
      { address: '0x12', label: 'b', tag_type: 'name' },
    ]),
    /entry 1: address/,
  );
  rejected(JSON.stringify([{ address, label: ' ', tag_type: 'name' }]), /entry 0: label/);
  rejected(JSON.stringify([{ address, label: 'a', tag_type: 'custom' }]), /entry 0: tag_type must be one of public, name/);
  rejected(JSON.stringify([{ address, label: 'a', tag_type: 'name', ordinal: 1.5 }]), /ordinal/);
  rejected(JSON.stringify([{ address, label: 'a', tag_type: 'name', meta: [1] }]), /meta/);
  rejected(JSON.stringify([{ address, label: '!!', tag_type: 'name' }]), /give a slug/);
  rejected(
    JSON.stringify([
      { address, label: 'A', tag_type: 'name' },
      { address, label: 'a', tag_type: 'note' },
    ]),
    /entry 1: a second tag "a"/,
  );
});
