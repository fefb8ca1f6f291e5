import { AsyncLocalStorage } from 'node:async_hooks';
import type { Socket } from 'node:net';
import type pg from 'pg';
import { type BackendKey, cancelStatement } from '../store/cancel.js';
import type { Db } from '../store/read/sql.js';
import { apiStatement } from './prepared-statements.js';
import type { ApiApp } from './route.js';

/**
 * Work for a client that has gone away is not done: a request whose connection closed while it
 * waited (for the event loop, for a database connection) runs no more queries (a connection it was
 * waiting for goes back to the pool unused: pg-pool cannot drop a waiter from its queue), and its
 * running statement is cancelled. The request a handler serves is known to the
 * database wrapper below through the handler's async context.
 */
export interface RequestContext {
  socket: Socket | null;
  /** Fastify's: aborted when the connection closes before the answer is sent. */
  gone: AbortSignal;
}

const currentRequest = new AsyncLocalStorage<RequestContext>();

/** A request whose client closed its connection: nobody reads the answer (nginx's 499). */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError';
  readonly statusCode = 499;

  constructor() {
    super('The client closed the connection.');
  }
}

/** Runs every route's handler with its request as the async context (call before the routes are added). */
export function trackRequests(app: ApiApp): void {
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (request, reply) {
      // The signal is made when first read (Fastify makes it then): a shared answer reads none.
      const context = {
        socket: request.raw.socket ?? null,
        get gone() {
          return request.signal;
        },
      };
      return withRequestContext(context, () => handler.call(this, request, reply));
    };
  });
}

/** Runs `task` as the work of the request `context` describes: its queries are checked against it. */
export function withRequestContext<T>(context: RequestContext, task: () => T): T {
  return currentRequest.run(context, task);
}

/** Runs `task` as the work of no request: work shared by several requests, which no one client leaving may cancel. */
export function outsideRequest<T>(task: () => T): T {
  return currentRequest.exit(task);
}

/**
 * Whether the request's client has closed its connection. The socket shows it first: it is destroyed
 * as soon as its end is read, while the request's signal aborts only once the socket's close is
 * handled, later in the same turn of the event loop.
 */
function clientGone(context: RequestContext | undefined): boolean {
  return context !== undefined && (context.socket?.destroyed === true || context.gone.aborted);
}

function throwIfClientGone(context: RequestContext | undefined): void {
  if (clientGone(context)) throw new ClientGoneError();
}

/** A pool the checks can also look at between the wait for a connection and the query, and whose queue they can see. */
type Pool = Db & {
  connect?(): Promise<PoolClient>;
  waitingCount?: number;
  options?: { max?: number };
};

/** A connection of the pool, whose statement can be cancelled when it has the backend's key. */
type PoolClient = Pick<pg.PoolClient, 'query' | 'release' | 'on' | 'off'> & BackendKey;

/** Requests waiting for a connection, per connection, beyond which a request is refused at once. */
const WAITING_PER_CONNECTION = 10;

/** The pool's queue is full: a quick 503 costs less than a wait that would end in one. */
export class PoolSaturatedError extends Error {
  override name = 'PoolSaturatedError';
  readonly statusCode = 503;

  constructor() {
    super('Every database connection is busy; try again shortly.');
  }
}

/** The requests waiting for a connection of the pool, one entry a query, with their contexts. */
type Waiting = Set<{ context: RequestContext | undefined }>;

/**
 * Whether the pool's queue is full: the requests waiting, not their statements, since a page runs
 * several side by side (at 64 clients, counting statements refused most requests of E2's deep page,
 * whose queue cleared in milliseconds). Waiters whose client has left hand their connection straight
 * back, so they do not count; they are counted only when the queue looks full.
 */
function saturated(pool: Pool, waiting: Waiting): boolean {
  const max = pool.options?.max;
  if (max === undefined) return false;
  const bound = WAITING_PER_CONNECTION * max;
  const queued = pool.waitingCount ?? 0;
  if (queued < bound) return false;
  const requests = new Set<unknown>();
  for (const entry of waiting) if (!clientGone(entry.context)) requests.add(entry.context ?? entry);
  // Waiters of the pool that are no request's (shared work) count one each.
  return queued - waiting.size + requests.size >= bound;
}

/**
 * Refuses a request when the pool's queue is full. A queue that looks full is looked at again one
 * turn of the event loop later: right after a burst, the closes of its connections may be read only
 * after the next request, and until then their waiters still count.
 */
async function refuseIfSaturated(pool: Pool, waiting: Waiting): Promise<void> {
  if (!saturated(pool, waiting)) return;
  await new Promise((resolve) => setImmediate(resolve));
  if (saturated(pool, waiting)) throw new PoolSaturatedError();
}

/**
 * The statement's result, with the callback handed to pg as the query is made rather than in pg's
 * promise form. With the promise form, what a request's queries read outlived the young generation's
 * collections and was freed only by a full one: the deep page of /blocks promoted 58 KB a request to
 * the old generation, 1 KB with the callback (bench/README.md, "Garbage promoted per request").
 */
function queryResult(client: PoolClient, statement: pg.QueryConfig): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    client.query(statement, (error: Error | null, result: pg.QueryResult) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * The statement's result; when the client goes while it runs, the statement is cancelled and the
 * query fails with ClientGoneError. Settles only once the cancel has reached the server, so that the
 * connection goes back to the pool before a late cancel could hit the next request's statement.
 */
async function queryUnlessGone(
  context: RequestContext | undefined,
  client: PoolClient,
  statement: pg.QueryConfig,
): Promise<pg.QueryResult> {
  let cancelled: Promise<void> | undefined;
  const cancel = () => {
    cancelled = cancelStatement(client);
  };
  context?.gone.addEventListener('abort', cancel, { once: true });
  try {
    return await queryResult(client, statement);
  } catch (error) {
    throw cancelled === undefined ? error : new ClientGoneError();
  } finally {
    context?.gone.removeEventListener('abort', cancel);
    await cancelled;
  }
}

/**
 * `pool`, whose queries fail with ClientGoneError instead of running once their request's client is
 * gone, and with PoolSaturatedError instead of queueing behind more than a few waiting requests per
 * connection (of clients still there: the first request after a burst is not refused for the burst's).
 */
export function clientAwareDb(pool: Pool, prepareStatements: boolean): Db {
  const waiting: Waiting = new Set();
  /** A connection of the pool, the request listed among the waiting ones meanwhile. */
  async function connect(connecting: Promise<PoolClient>, context: RequestContext | undefined): Promise<PoolClient> {
    const entry = { context };
    waiting.add(entry);
    try {
      return await connecting;
    } finally {
      waiting.delete(entry);
    }
  }
  return {
    async query(text, values) {
      const context = currentRequest.getStore();
      throwIfClientGone(context);
      await refuseIfSaturated(pool, waiting);
      // The client may have left during the second look.
      throwIfClientGone(context);
      if (pool.connect === undefined) return pool.query(text, values);
      const client = await connect(pool.connect(), context);
      // A connection that breaks fails the query; its 'error' event, which the pool hears only of idle connections, must not end the process.
      const ignore = () => undefined;
      client.on('error', ignore);
      try {
        throwIfClientGone(context);
        return await queryUnlessGone(context, client, apiStatement(text, values, prepareStatements));
      } finally {
        client.off('error', ignore);
        client.release();
      }
    },
  };
}
