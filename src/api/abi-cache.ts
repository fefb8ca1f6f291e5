import { type Abi, abiOfSignature } from '../decoding/index.js';
import type { StoredAbi } from '../store/read/contract-abis.js';

/** What a parsed entry costs beyond its text: a one-item ABI parsed from a 30-character signature holds far more than 30 bytes. */
export const ENTRY_OVERHEAD_BYTES = 1024;

/**
 * Parsed ABIs by their key (the MD5 of a JSON text, or a signature), the least recently used dropped first
 * beyond a budget of bytes (text, and a share for what parsing adds). Kept by content, an entry cannot go stale: a new verification is a new
 * text. What it saves is the parse and, above all, the selectors of every item (a keccak each), which
 * src/decoding computes once per ABI object.
 */
export class AbiCache {
  private readonly entries = new Map<string, { abi: Abi; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  parsed(stored: StoredAbi): Abi {
    const cached = this.entries.get(stored.key);
    if (cached !== undefined) {
      // Map keeps insertion order: moved to the end, the entry is the most recently used.
      this.entries.delete(stored.key);
      this.entries.set(stored.key, cached);
      return cached.abi;
    }
    const text = 'json' in stored ? stored.json : stored.signature;
    const abi = 'json' in stored ? (JSON.parse(stored.json) as Abi) : abiOfSignature(stored.signature);
    const bytes = text.length + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.maxBytes) return abi;
    this.entries.set(stored.key, { abi, bytes });
    this.bytes += bytes;
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
    return abi;
  }
}
