import pg from 'pg';

/**
 * What a write tells the API processes, through PostgreSQL's NOTIFY on one channel: small payloads
 * that say where to read, never the rows themselves (a NOTIFY payload is limited to 8000 bytes).
 */
export type ChainChange =
  /** Consensus blocks from..to (inclusive) were written. */
  | { kind: 'blocks'; from: number; to: number }
  /** The pool gained transactions. */
  | { kind: 'pending'; added: number }
  /** Coin balances were read at this block. */
  | { kind: 'balances'; blockNumber: number }
  /** A verification job of the contract at `address` (lowercase) finished. */
  | { kind: 'verification'; address: string; job: string }
  /** Consensus blocks from..to (inclusive; not every block between need be one) were traced. */
  | { kind: 'traced'; from: number; to: number }
  /** A reorg took the consensus blocks from this height up off the canonical chain (the node's branch is written next). */
  | { kind: 'retracted'; from: number };

const channel = 'sextant_chain_changes';
/** The application_name of the listening connection, unless its settings name one. */
export const listenerName = 'sextant change listener';

/** Tells listeners of a change when the transaction `client` runs in commits (at once outside one). */
export async function notifyChange(client: pg.ClientBase, change: ChainChange): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify(change)]);
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The change a payload names; null for one this version does not know (written by another). */
export function parseChange(payload: string | undefined): ChainChange | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(payload ?? '') as Record<string, unknown>;
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (value.kind === 'blocks' && isCount(value.from) && isCount(value.to) && value.from <= value.to)
    return { kind: 'blocks', from: value.from, to: value.to };
  if (value.kind === 'pending' && isCount(value.added)) return { kind: 'pending', added: value.added };
  if (value.kind === 'balances' && isCount(value.blockNumber)) return { kind: 'balances', blockNumber: value.blockNumber };
  if (value.kind === 'verification' && typeof value.address === 'string' && typeof value.job === 'string')
    return { kind: 'verification', address: value.address, job: value.job };
  if (value.kind === 'traced' && isCount(value.from) && isCount(value.to) && value.from <= value.to)
    return { kind: 'traced', from: value.from, to: value.to };
  if (value.kind === 'retracted' && isCount(value.from)) return { kind: 'retracted', from: value.from };
  return null;
}

export interface ChangeListener {
  close(): Promise<void>;
}

export interface ChangeListenerOptions {
  /** How the connection is made: the pool's own settings. */
  connection: pg.ClientConfig;
  /**
   * A change, with the writer's WAL position once it committed (null when it could not be read): a
   * reader of a streaming replica waits until the replica has replayed that far before reading it.
   */
  onChange(change: ChainChange, walPosition: string | null): void;
  /** A lost connection, before it is made again after `reconnectDelayMs` (changes meanwhile are missed). */
  onError(error: Error): void;
  /** The connection listens, at first and again after each loss: every change from now on is heard. */
  onListening?(): void;
  reconnectDelayMs?: number;
}

/**
 * Listens for changes on one connection of its own, kept outside any pool (a LISTEN holds its
 * connection for good), made again whenever it is lost or cannot be made.
 */
export async function listenForChanges(options: ChangeListenerOptions): Promise<ChangeListener> {
  const reconnectDelayMs = options.reconnectDelayMs ?? 2000;
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    // Named, so that an operator (and a test) tells it from the pools' connections in pg_stat_activity.
    const next = new pg.Client({ application_name: listenerName, ...options.connection });
    next.on('notification', (message) => {
      const change = parseChange(message.payload);
      if (change === null) return;
      // Queries on one connection answer in order, so changes keep theirs.
      next.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn').then(
        ({ rows }) => options.onChange(change, rows[0]!.lsn),
        () => options.onChange(change, null),
      );
    });
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('the change listener connection ended')));
    client = next;
    await next.connect();
    await next.query(`LISTEN ${channel}`);
    options.onListening?.();
  };

  const lost = (which: pg.Client, error: Error): void => {
    if (closed || client !== which) return;
    client = null;
    which.end().catch(() => undefined);
    options.onError(error);
    retry = setTimeout(() => {
      retry = null;
      if (!closed) connect().catch((e: Error) => client !== null && lost(client, e));
    }, reconnectDelayMs);
  };

  // A first connection that fails (a database too busy to open one in time, say) is made again as a lost one is.
  await connect().catch((error: Error) => client !== null && lost(client, error));
  return {
    async close() {
      closed = true;
      if (retry !== null) clearTimeout(retry);
      const open = client;
      client = null;
      await open?.end().catch(() => undefined);
    },
  };
}
