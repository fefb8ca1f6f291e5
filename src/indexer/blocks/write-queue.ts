import { createSerialQueue } from '../../lib/serial.js';

/** A run's database writes: one at a time, in the order they were queued. */
export interface WriteQueue<Item> {
  /** Runs a task alone among the writes, after everything queued before it. */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  /** Writes items; resolves when they are written. */
  store(items: readonly Item[]): Promise<void>;
}

/**
 * Items stored one after another while the queue is busy, with no exclusive task queued between
 * them, are written together: when the writer falls behind, each write's fixed cost (a transaction
 * and its statements) is paid once for all the batches waiting, and the order of writes and tasks
 * is the order they were queued in.
 */
export function createWriteQueue<Item>(write: (items: Item[]) => Promise<void>): WriteQueue<Item> {
  const serial = createSerialQueue();
  // The items of the last write queued, while it has not started; later items may join it.
  let open: { items: Item[]; written: Promise<void> } | null = null;
  return {
    exclusive<T>(task: () => Promise<T>): Promise<T> {
      open = null;
      return serial(task);
    },
    store(items: readonly Item[]): Promise<void> {
      if (open !== null) {
        open.items.push(...items);
        return open.written;
      }
      const group: Item[] = [...items];
      const written = serial(() => {
        if (open?.items === group) open = null;
        return write(group);
      });
      open = { items: group, written };
      return written;
    },
  };
}
