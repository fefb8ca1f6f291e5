import type { BlockRange } from '../../store/index-progress.js';

/** Splits ranges into batches of at most `size` consecutive block numbers, ascending. */
export function* blockBatches(ranges: readonly BlockRange[], size: number): Generator<bigint[]> {
  for (const range of ranges) {
    for (let start = range.from; start <= range.to; start += BigInt(size)) {
      const end = start + BigInt(size) - 1n < range.to ? start + BigInt(size) - 1n : range.to;
      const batch: bigint[] = [];
      for (let n = start; n <= end; n++) batch.push(n);
      yield batch;
    }
  }
}
