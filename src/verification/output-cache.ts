/**
 * Compiler outputs (JSON text) by key, the least recently used dropped first once their total length
 * passes a bound: the JSON a compiler writes is nearly all ASCII, so its length is its size in bytes.
 */
export class OutputCache {
  private readonly entries = new Map<string, string>();
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): string | undefined {
    const text = this.entries.get(key);
    if (text !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, text);
    }
    return text;
  }

  set(key: string, text: string): void {
    if (text.length > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.size -= previous.length;
    }
    this.entries.set(key, text);
    this.size += text.length;
    for (const [oldest, old] of this.entries) {
      if (this.size <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.size -= old.length;
    }
  }

  clear(): void {
    this.entries.clear();
    this.size = 0;
  }
}
