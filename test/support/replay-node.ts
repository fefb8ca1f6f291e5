import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Recording = { method: string; params: unknown[] } & (
  | { result: unknown }
  /** The JSON-RPC error the node answered with instead of a result. */
  | { error: { code: number; message: string; data?: unknown } }
);

export interface ReceivedCall {
  method: string;
  params: unknown[];
}

/**
 * How the node misbehaves on one HTTP request: an error status, a body that is not JSON, a dropped
 * connection, or no answer at all.
 */
export type Fault = 'http-503' | 'http-429' | 'malformed-json' | 'connection-reset' | 'no-answer';

export interface ReplayNode {
  url: string;
  /** Every JSON-RPC call received, in order, batches flattened. */
  requests: ReceivedCall[];
  /** The number of calls in each HTTP request received (1 for a call sent on its own). */
  httpRequests: { calls: number; batch: boolean }[];
  stop(): Promise<void>;
}

/**
 * A real JSON-RPC server over HTTP that answers from recordings, like a pruned node that serves
 * only what was recorded. Params match as JSON, except that hex strings compare by value, so
 * `0x112A880` matches `0x112a880`. A recorded method asked with other params answers null (as a
 * node answers for a block it does not have); any other method is refused with -32601. A recording
 * may hold the JSON-RPC error the node answered instead of a result.
 * `faults` are played in order, one per HTTP request, before the node starts answering.
 */
export async function startReplayNode(recordings: readonly Recording[], options: { faults?: readonly Fault[] } = {}): Promise<ReplayNode> {
  const faults = [...(options.faults ?? [])];
  const requests: ReceivedCall[] = [];
  const httpRequests: { calls: number; batch: boolean }[] = [];

  const answer = (call: unknown): object => {
    const { id = null, method, params = [] } = (call ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== 'string' || !Array.isArray(params)) {
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } };
    }
    requests.push({ method, params });
    if (!recordings.some((recording) => recording.method === method)) {
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `the method ${method} does not exist/is not available` } };
    }
    const recording = recordings.find((candidate) => candidate.method === method && sameJson(candidate.params, params));
    if (recording !== undefined && 'error' in recording) return { jsonrpc: '2.0', id, error: recording.error };
    return { jsonrpc: '2.0', id, result: recording === undefined ? null : recording.result };
  };

  const handle = (body: string, response: ServerResponse) => {
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      respond(response, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
      return;
    }
    if (Array.isArray(payload)) {
      httpRequests.push({ calls: payload.length, batch: true });
      respond(response, payload.map(answer));
    } else {
      httpRequests.push({ calls: 1, batch: false });
      respond(response, answer(payload));
    }
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const fault = faults.shift();
      if (fault === undefined) handle(Buffer.concat(chunks).toString('utf8'), response);
      else playFault(fault, request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    httpRequests,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function playFault(fault: Fault, request: IncomingMessage, response: ServerResponse): void {
  switch (fault) {
    case 'http-503':
      response.writeHead(503, { 'Content-Type': 'text/plain' }).end('Service Unavailable');
      return;
    case 'http-429':
      response.writeHead(429, { 'Content-Type': 'text/plain' }).end('Too Many Requests');
      return;
    case 'malformed-json':
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":');
      return;
    case 'connection-reset':
      request.socket.destroy();
      return;
    case 'no-answer':
      return;
  }
}

function respond(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

const HEX = /^0x[0-9a-f]+$/i;

function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string' && HEX.test(a) && HEX.test(b)) return BigInt(a) === BigInt(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
    );
  }
  return a === b;
}
