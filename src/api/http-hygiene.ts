import { type IncomingMessage, STATUS_CODES, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';

/**
 * What the API answers before and around its routes: every answer says what it is
 * (X-Content-Type-Options: nosniff) and has a JSON body, and a request the API cannot serve whatever
 * its URL is refused before any of it is read.
 */

export const noSniff = { name: 'x-content-type-options', value: 'nosniff' } as const;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a request body (within its own limits); every other refuses one. */
    acceptsBody?: boolean;
  }
}

/** A route that takes no body refuses one on arrival, and the connection is closed rather than the rest of it read. */
export const hasBody = (headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * A request that asks to switch to another protocol than the websocket (`Upgrade: h2c`, which curl
 * sends with --http2) is answered as the HTTP/1.1 request it also is, as RFC 9110 lets a server ignore
 * Upgrade: Node hands every upgrade to the websocket's listeners, whose `ws` answers any other protocol
 * with a 400 in text/html. Called once the websocket's listeners are on the server; the connection is
 * closed after the answer, since Node no longer reads the socket after an upgrade.
 */
function answerForeignUpgrades(app: FastifyInstance): void {
  const server = app.server;
  const websocketListeners = server.listeners('upgrade') as ((request: IncomingMessage, socket: Duplex, head: Buffer) => void)[];
  server.removeAllListeners('upgrade');
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (request.headers.upgrade?.trim().toLowerCase() === 'websocket') {
      for (const listener of websocketListeners) listener.call(server, request, socket, head);
      return;
    }
    socket.on('error', () => socket.destroy());
    const response = new ServerResponse(request);
    response.assignSocket(socket as Socket);
    response.shouldKeepAlive = false;
    response.once('finish', () => socket.end());
    app.routing(request, response);
  });
}

export function registerHttpHygiene(app: FastifyInstance): void {
  answerForeignUpgrades(app);
  app.addHook('onRequest', async (request, reply) => {
    // Node answers a missing Host with an empty 400 unless told not to (see buildApi): answered here instead.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return reply.code(400).header('connection', 'close').send({ message: 'An HTTP/1.1 request needs a Host header.' });
    }
    if (hasBody(request.headers) && request.routeOptions.config.acceptsBody !== true) {
      return reply
        .code(413)
        .header('connection', 'close')
        .send({ message: 'This API takes no request body; send the request without one.' });
    }
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header(noSniff.name, noSniff.value);
    return payload;
  });
}

/** A request Node's parser cannot read (malformed, headers too large, too slow): a JSON answer, then the connection closed. */
export function clientErrorHandler(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request did not arrive in time.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are too large.']
        : [400, 'Malformed HTTP request.'];
  const body = JSON.stringify({ message });
  // The answer to a HEAD has no body, or the client reads it as the start of another answer.
  // Typed as JSON by Fastify, a Buffer from Node.
  const packet: unknown = error.rawPacket;
  const head = Buffer.isBuffer(packet) && packet.subarray(0, 5).toString('latin1') === 'HEAD ';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n${noSniff.name}: ${noSniff.value}\r\ncache-control: no-store\r\n` +
        `connection: close\r\n\r\n${head ? '' : body}`,
    );
  }
  socket.destroy(error);
}
