import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import type { Db } from '../store/read/sql.js';
import type { ApiApp } from './route.js';

/**
 * Work for a client that has gone away is not started: a request whose connection closed while it
 * waited (for the event loop, for a database connection) runs no more queries. The request a handler
 * serves is known to the database wrapper below through the handler's async context.
 */
const currentRequest = new AsyncLocalStorage<IncomingMessage>();

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
      return currentRequest.run(request.raw, () => handler.call(this, request, reply));
    };
  });
}

function throwIfClientGone(): void {
  if (currentRequest.getStore()?.socket?.destroyed === true) throw new ClientGoneError();
}

/** A pool the checks can also look at between the wait for a connection and the query, and whose queue they can see. */
type Pool = Db & {
  connect?(): Promise<Db & Pick<pg.PoolClient, 'release' | 'on' | 'off'>>;
  waitingCount?: number;
  options?: { max?: number };
};

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

function throwIfSaturated(pool: Pool): void {
  const max = pool.options?.max;
  if (max !== undefined && (pool.waitingCount ?? 0) >= WAITING_PER_CONNECTION * max) throw new PoolSaturatedError();
}

/**
 * `pool`, whose queries fail with ClientGoneError instead of running once their request's client is
 * gone, and with PoolSaturatedError instead of queueing behind more than a few waiting requests per connection.
 */
export function clientAwareDb(pool: Pool): Db {
  return {
    async query(text, values) {
      throwIfClientGone();
      throwIfSaturated(pool);
      if (pool.connect === undefined) return pool.query(text, values);
      const client = await pool.connect();
      // A connection that breaks fails the query; its 'error' event, which the pool hears only of idle connections, must not end the process.
      const ignore = () => undefined;
      client.on('error', ignore);
      try {
        throwIfClientGone();
        return await client.query(text, values);
      } finally {
        client.off('error', ignore);
        client.release();
      }
    },
  };
}
