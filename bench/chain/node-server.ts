import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { contractAnswer } from './contracts.js';
import { CHAIN_ID, type ChainGenerator, type GeneratedBlock } from './generate.js';
import { RevealedHead } from './reveal.js';

const CLIENT_VERSION = 'erigon/2.60.10/linux-amd64/go1.22.5';
/** Blocks generated recently: a block and its receipts are asked in one batch, its traces soon after. */
const CACHED_BLOCKS = 256;

export type Answer = { jsonrpc: '2.0'; id: unknown } & ({ result: unknown } | { error: { code: number; message: string } });

/**
 * The generated chain's answer to one JSON-RPC call, as an Erigon node would give it: blocks with full
 * transactions, block receipts, Parity traces, and eth_call for the tokens; nothing past `head()`.
 */
export function createNodeAnswers(chain: ChainGenerator, head = () => chain.head): (call: unknown) => Answer {
  const cache = new Map<number, GeneratedBlock>();
  const generated = (number: number): GeneratedBlock => {
    let block = cache.get(number);
    if (block === undefined) {
      block = chain.block(number);
      cache.set(number, block);
      if (cache.size > CACHED_BLOCKS) cache.delete(cache.keys().next().value!);
    }
    return block;
  };
  /** The block a tag names, or null past the head. */
  const blockOf = (tag: unknown): GeneratedBlock | null => {
    const shown = head();
    const number = tag === 'latest' || tag === 'safe' || tag === 'finalized' ? shown : tag === 'earliest' ? 0 : Number(tag);
    return Number.isInteger(number) && number >= 0 && number <= shown ? generated(number) : null;
  };

  const results: Record<string, (params: unknown[]) => unknown> = {
    eth_chainId: () => CHAIN_ID,
    web3_clientVersion: () => CLIENT_VERSION,
    eth_blockNumber: () => `0x${head().toString(16)}`,
    eth_getBlockByNumber: ([tag, full]) => {
      const found = blockOf(tag);
      if (found === null) return null;
      return full === true ? found.block : { ...found.block, transactions: found.block.transactions.map((t) => t.hash) };
    },
    eth_getBlockReceipts: ([tag]) => blockOf(tag)?.receipts ?? null,
    trace_block: ([tag]) => blockOf(tag)?.traces ?? null,
    eth_getCode: () => '0x',
  };

  const answer = (call: unknown): Answer => {
    const { id = null, method, params = [] } = (call ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== 'string' || !Array.isArray(params))
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } };
    if (method === 'eth_call') {
      const { to, data } = (params[0] ?? {}) as { to?: unknown; data?: unknown };
      const returned = typeof to === 'string' && typeof data === 'string' ? contractAnswer(to, data) : null;
      return returned === null
        ? { jsonrpc: '2.0', id, error: { code: 3, message: 'execution reverted' } }
        : { jsonrpc: '2.0', id, result: returned };
    }
    const result = results[method];
    if (result === undefined)
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `the method ${method} does not exist/is not available` } };
    return { jsonrpc: '2.0', id, result: result(params) };
  };
  return answer;
}

/** The subscription id of every `eth_subscribe` newHeads: one per socket. */
const SUBSCRIPTION = '0x1';

/**
 * The generated chain's node over HTTP (keep-alive, batches). With `revealFrom`, it shows the chain up
 * to that block only, then moves on at the rate a `POST /reveal?rate=R` sets (blocks per second; it
 * answers with the RevealStart), announcing each block to the websockets subscribed to newHeads.
 */
export function createNodeServer(chain: ChainGenerator, revealFrom?: number): Server {
  const subscribers = new Set<WebSocket>();
  const revealed =
    revealFrom === undefined
      ? null
      : new RevealedHead(revealFrom, chain.head, (number) => {
          const { block } = chain.block(number);
          const message = JSON.stringify({
            jsonrpc: '2.0',
            method: 'eth_subscription',
            params: { subscription: SUBSCRIPTION, result: { ...block, transactions: undefined } },
          });
          for (const socket of subscribers) socket.send(message);
        });
  const answer = createNodeAnswers(chain, revealed === null ? undefined : () => revealed.head());
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: string;
      const control = new URL(request.url ?? '/', 'http://node');
      if (control.pathname === '/reveal' && revealed !== null) {
        body = JSON.stringify(revealed.setRate(Number(control.searchParams.get('rate') ?? 0)));
      } else {
        try {
          const payload: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          body = JSON.stringify(Array.isArray(payload) ? payload.map(answer) : answer(payload));
        } catch {
          body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    });
  };
  const server = createServer({ keepAlive: true, keepAliveTimeout: 60_000 }, handle);
  new WebSocketServer({ server }).on('connection', (socket) => {
    socket.on('message', (data) => {
      const call = parseCall(data.toString());
      if (call?.method === 'eth_subscribe' && Array.isArray(call.params) && call.params[0] === 'newHeads') {
        subscribers.add(socket);
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, result: SUBSCRIPTION }));
      } else {
        socket.send(JSON.stringify(answer(call)));
      }
    });
    socket.on('close', () => subscribers.delete(socket));
  });
  server.on('close', () => revealed?.stop());
  return server;
}

function parseCall(text: string): { id?: unknown; method?: unknown; params?: unknown } | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : null;
  } catch {
    return null;
  }
}
