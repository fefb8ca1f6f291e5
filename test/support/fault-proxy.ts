import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The ways a node misbehaves on one HTTP request. The first six break the whole request; the
 * last four answer well-formed JSON-RPC whose content is wrong:
 * - `timeout`: the request is held, never answered (until the client gives up);
 * - `http-429`: Too Many Requests, with a Retry-After header;
 * - `http-502`, `http-503`: a gateway or node error;
 * - `malformed-json`: a 200 whose body is cut short;
 * - `connection-reset`: the socket is destroyed;
 * - `missing-field`: one object of one answer's result loses a member;
 * - `null-field`: one member of one object of one answer's result is null;
 * - `null-result`: one answer's object result is null (as for a block the node does not have);
 * - `batch-member`: one answer of a batch is left out.
 */
export const faultKinds = [
  'timeout',
  'http-429',
  'http-502',
  'http-503',
  'malformed-json',
  'connection-reset',
  'missing-field',
  'null-field',
  'null-result',
  'batch-member',
] as const;
export type FaultKind = (typeof faultKinds)[number];

/** The chance, per HTTP request, of each kind of fault. */
export type FaultRates = Partial<Record<FaultKind, number>>;

export interface FaultProxyOptions {
  /** The node's URL. */
  target: string;
  /** Seeds the choice of faulty requests and of what they break: the same requests, in the same order, draw the same faults. */
  seed: number;
  rates?: FaultRates;
  /** Requests holding a call this says to spare pass untouched. */
  spare?: (call: { method: string; params: unknown[] }) => boolean;
  /** At most this many faults of a kind; unlimited for a kind not named. */
  limits?: Partial<Record<FaultKind, number>>;
  /** The Retry-After of a 429, in seconds. */
  retryAfterSeconds?: number;
  /** A request holding more calls than this answers 503, as a node that cannot serve big batches. */
  overloadedAbove?: number;
}

export interface FaultProxy {
  url: string;
  /** Faults injected so far, by kind. */
  readonly injected: Record<FaultKind, number>;
  /** While down, every connection is destroyed as soon as it sends a request, as if the node had gone. */
  setDown(down: boolean): void;
  stop(): Promise<void>;
}

/** Rates that make `share` of the requests faulty, spread evenly over `kinds`. */
export function evenRates(share: number, kinds: readonly FaultKind[] = faultKinds): FaultRates {
  return Object.fromEntries(kinds.map((kind) => [kind, share / kinds.length]));
}

/** Mulberry32: a small seeded PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type JsonObject = Record<string, unknown>;
interface JsonRpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: unknown;
}

/**
 * A real HTTP proxy in front of a JSON-RPC node that injects faults into the requests it passes,
 * each HTTP request drawing at most one fault with the configured rates. A fault on the content of
 * answers (missing or null members, null results, batch answers left out) counts only where it
 * applies: a request whose answers hold no object passes untouched.
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const random = seededRandom(options.seed);
  const injected = Object.fromEntries(faultKinds.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  const rates: FaultRates = { ...options.rates };
  let down = false;
  const sockets = new Set<Socket>();
  const target = new URL(options.target);

  const draw = (): FaultKind | null => {
    let point = random();
    for (const kind of faultKinds) {
      const rate = rates[kind] ?? 0;
      if (point < rate) return injected[kind] >= (options.limits?.[kind] ?? Infinity) ? null : kind;
      point -= rate;
    }
    return null;
  };

  const forward = (body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const upstream = httpRequest(
        {
          hostname: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 502,
              headers: { 'content-type': response.headers['content-type'] ?? 'application/json' },
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', reject);
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });

  const handle = async (request: IncomingMessage, response: ServerResponse, body: Buffer) => {
    if (down) {
      request.socket.destroy();
      return;
    }
    if (options.overloadedAbove !== undefined && callCount(body) > options.overloadedAbove) {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    const fault = options.spare !== undefined && holdsSpared(body, options.spare) ? null : draw();
    switch (fault) {
      case 'timeout':
        // Held until the client gives up and closes the connection, or the proxy stops.
        injected.timeout += 1;
        return;
      case 'http-429':
        injected[fault] += 1;
        response
          .writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(options.retryAfterSeconds ?? 1) })
          .end('Too Many Requests');
        return;
      case 'http-502':
      case 'http-503':
        injected[fault] += 1;
        response
          .writeHead(fault === 'http-502' ? 502 : 503, { 'content-type': 'text/plain' })
          .end(fault === 'http-502' ? 'Bad Gateway' : 'Service Unavailable');
        return;
      case 'malformed-json':
        injected[fault] += 1;
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{"number":');
        return;
      case 'connection-reset':
        injected[fault] += 1;
        request.socket.destroy();
        return;
    }
    let answer: Awaited<ReturnType<typeof forward>>;
    try {
      answer = await forward(body);
    } catch {
      request.socket.destroy();
      return;
    }
    let out = answer.body;
    if (fault !== null && answer.status === 200) {
      const corrupted = corrupt(fault, JSON.parse(answer.body.toString('utf8')) as unknown, random);
      if (corrupted !== null) {
        injected[fault] += 1;
        out = Buffer.from(JSON.stringify(corrupted));
      }
    }
    response.writeHead(answer.status, answer.headers).end(out);
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => void handle(request, response, Buffer.concat(chunks)));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    injected,
    setDown(next) {
      down = next;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** The number of JSON-RPC calls in a request body (1 for anything but a batch). */
function callCount(body: Buffer): number {
  try {
    const payload: unknown = JSON.parse(body.toString('utf8'));
    return Array.isArray(payload) ? payload.length : 1;
  } catch {
    return 1;
  }
}

function holdsSpared(body: Buffer, spare: NonNullable<FaultProxyOptions['spare']>): boolean {
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    return false;
  }
  const calls = Array.isArray(payload) ? payload : [payload];
  return calls.some((call) => {
    const { method, params } = (call ?? {}) as { method?: unknown; params?: unknown };
    return typeof method === 'string' && spare({ method, params: Array.isArray(params) ? params : [] });
  });
}

/**
 * Members whose absence, or null value, is a form nodes answer in, so that no client can tell the
 * damaged answer from a sound one: breaking them that way is no fault. Geth no longer sends a block's
 * totalDifficulty since the merge, other nodes send it as null; OpenEthereum's traces have no
 * creationMethod; a trace frame without an error is one that succeeded.
 */
const MAY_BE_ABSENT = new Set(['totalDifficulty', 'creationMethod', 'error']);
const MAY_BE_NULL = new Set(['totalDifficulty']);

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The answers of a request: one, or a batch's. */
const answersOf = (payload: unknown): JsonRpcAnswer[] => (Array.isArray(payload) ? payload : [payload]).filter(isObject);

/**
 * `payload` (a JSON-RPC answer or a batch of them) with a fault of content `kind`, or null where the
 * fault does not apply (no object result to corrupt, no batch to leave an answer out of).
 */
function corrupt(kind: FaultKind, payload: unknown, random: () => number): unknown {
  const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)];
  if (kind === 'batch-member') {
    if (!Array.isArray(payload) || payload.length < 2) return null;
    const dropped = Math.floor(random() * payload.length);
    return payload.filter((_, i) => i !== dropped);
  }
  const withResult = answersOf(payload).filter((answer) => isObject(answer.result) || Array.isArray(answer.result));
  const answer = pick(withResult);
  if (answer === undefined) return null;
  if (kind === 'null-result') {
    if (!isObject(answer.result)) return null;
    answer.result = null;
    return payload;
  }
  // missing-field, null-field: one member of one object anywhere in the result.
  const breakable = (object: JsonObject) =>
    Object.keys(object).filter((key) =>
      kind === 'missing-field' ? !MAY_BE_ABSENT.has(key) : !MAY_BE_NULL.has(key) && object[key] !== null,
    );
  const object = pick(objectsIn(answer.result).filter((candidate) => breakable(candidate).length > 0));
  const key = object === undefined ? undefined : pick(breakable(object));
  if (object === undefined || key === undefined) return null;
  if (kind === 'missing-field') delete object[key];
  else object[key] = null;
  return payload;
}

/** Every object in a JSON value, the value itself included, depth first. */
function objectsIn(value: unknown): JsonObject[] {
  if (Array.isArray(value)) return value.flatMap(objectsIn);
  if (!isObject(value)) return [];
  return [value, ...Object.values(value).flatMap(objectsIn)];
}
