import { connect } from 'node:net';

/**
 * What PostgreSQL needs to cancel the statement a connection runs: where the server listens, and the
 * backend's key that it sent at connection start (node-postgres keeps both on its client).
 */
export interface BackendKey {
  host?: string;
  port?: number;
  processID?: number | null;
  secretKey?: number | null;
}

/** The CancelRequest code of the protocol (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80877102;

/** A server that does not answer a cancel request within this long is left alone. */
const CANCEL_TIMEOUT_MS = 1_000;

/**
 * Asks the server to cancel the statement the backend runs, as libpq's PQcancel does: a CancelRequest
 * on a connection of its own, which the server answers by closing it, needing no authentication and no
 * connection from the pool. Resolves once the server has closed that connection, by which time it has
 * signalled the backend (or failed: a cancel is best effort, and never rejects). The statement then
 * fails with SQLSTATE 57014; a backend that was already idle ignores the signal. Without the key (a connection not yet started), there is nothing to cancel.
 */
export function cancelStatement(backend: BackendKey): Promise<void> {
  const { host, port, processID, secretKey } = backend;
  if (host == null || port == null || processID == null || secretKey == null) return Promise.resolve();
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  message.writeInt32BE(processID, 8);
  message.writeInt32BE(secretKey, 12);
  return new Promise((resolve) => {
    const socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
    socket.setTimeout(CANCEL_TIMEOUT_MS, () => socket.destroy());
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    socket.on('connect', () => socket.end(message));
  });
}
