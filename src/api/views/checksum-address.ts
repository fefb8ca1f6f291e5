import { keccak_256 } from '@noble/hashes/sha3';

// Pages repeat the same few addresses (the page's own, its tokens): a hash per repeat would cost more
// than the whole lookup. Cleared when full rather than kept in LRU order.
const cache = new Map<string, string>();
const cacheSize = 10_000;

/** The EIP-55 mixed-case form of a lowercase 0x-prefixed address (as viem's getAddress gives it). */
export function checksumAddress(address: string): string {
  let checksummed = cache.get(address);
  if (checksummed === undefined) {
    const hex = address.slice(2);
    const hash = keccak_256(Buffer.from(hex, 'latin1'));
    checksummed = '0x';
    for (let i = 0; i < hex.length; i++) {
      const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 15;
      checksummed += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i];
    }
    if (cache.size >= cacheSize) cache.clear();
    cache.set(address, checksummed);
  }
  return checksummed;
}
