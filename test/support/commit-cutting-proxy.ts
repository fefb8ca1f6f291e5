import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** Protocol codes of the untyped messages a connection may open with (PostgreSQL's frontend/backend protocol). */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** The statements a client sent in one transaction, from its BEGIN to its COMMIT, in order. */
export type Transaction = readonly string[];

export interface CommitCuttingProxyOptions {
  /** The PostgreSQL server's host and port. */
  host: string;
  port: number;
  /** Asked at each COMMIT: true loses the answer to this one. */
  cut(transaction: Transaction): boolean;
}

export interface CommitCuttingProxy {
  /** The address to connect to instead of the server, as `host:port`. */
  address: string;
  /** The transactions committed whose answer was lost, in order. */
  cuts: Transaction[];
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a PostgreSQL server that loses the answer to a commit. When `cut` picks a
 * transaction, the proxy passes its COMMIT on, waits for the server's first bytes of answer (the
 * transaction is committed by then), and closes both sides without passing them on: the client hears
 * only a broken connection, as when a server stops at once right after a commit.
 */
export async function startCommitCuttingProxy(options: CommitCuttingProxyOptions): Promise<CommitCuttingProxy> {
  const cuts: Transaction[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(options.port, options.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    let transaction: string[] | null = null;
    let committing: Transaction | null = null;
    const read = frontendReader((message, statement) => {
      upstream.write(message);
      if (statement === null) return;
      if (/^\s*BEGIN\b/i.test(statement)) transaction = [];
      transaction?.push(statement);
      if (/^\s*COMMIT\s*;?\s*$/i.test(statement) && transaction !== null) {
        if (options.cut(transaction)) committing = transaction;
        transaction = null;
      }
    });
    client.on('data', read);
    upstream.on('data', (chunk: Buffer) => {
      if (committing === null) {
        client.write(chunk);
        return;
      }
      cuts.push(committing);
      client.destroy();
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    cuts,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Splits a client's bytes into whole protocol messages, each handed on with the SQL it carries: the
 * text of a simple query ('Q') or of a statement being parsed ('P'), null for any other message.
 */
function frontendReader(onMessage: (message: Buffer, statement: string | null) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  // The first message has no type byte, nor has the one after a refused request for encryption.
  let opening = true;
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const headerLength = opening ? 0 : 1;
      if (pending.length < headerLength + 4) return;
      const length = headerLength + pending.readInt32BE(headerLength);
      if (pending.length < length) return;
      const message = pending.subarray(0, length);
      pending = pending.subarray(length);
      if (opening) {
        const code = message.readInt32BE(4);
        opening = code === SSL_REQUEST || code === GSSENC_REQUEST;
        onMessage(message, null);
      } else {
        onMessage(message, statementOf(message));
      }
    }
  };
}

function statementOf(message: Buffer): string | null {
  const type = String.fromCharCode(message[0]!);
  if (type === 'Q') return cString(message, 5);
  // Parse: the statement's name, then its text.
  if (type === 'P') return cString(message, message.indexOf(0, 5) + 1);
  return null;
}

function cString(buffer: Buffer, start: number): string {
  return buffer.toString('utf8', start, buffer.indexOf(0, start));
}
