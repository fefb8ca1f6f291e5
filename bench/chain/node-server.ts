import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { contractAnswer } from './contracts.js';
import { CHAIN_ID, type ChainGenerator, type GeneratedBlock } from './generate.js';

const CLIENT_VERSION = 'erigon/2.60.10/linux-amd64/go1.22.5';
/** Blocks generated recently: a block and its receipts are asked in one batch, its traces soon after. */
const CACHED_BLOCKS = 256;

export type Answer = { jsonrpc: '2.0'; id: unknown } & ({ result: unknown } | { error: { code: number; message: string } });

/**
 * The generated chain's answer to one JSON-RPC call, as an Erigon node would give it: blocks with full
 * transactions, block receipts, Parity traces, and eth_call for the tokens.
 */
export function createNodeAnswers(chain: ChainGenerator): (call: unknown) => Answer {
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
    const number = tag === 'latest' || tag === 'safe' || tag === 'finalized' ? chain.head : tag === 'earliest' ? 0 : Number(tag);
    return Number.isInteger(number) && number >= 0 && number <= chain.head ? generated(number) : null;
  };

  const results: Record<string, (params: unknown[]) => unknown> = {
    eth_chainId: () => CHAIN_ID,
    web3_clientVersion: () => CLIENT_VERSION,
    eth_blockNumber: () => `0x${chain.head.toString(16)}`,
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

/** The generated chain's node over HTTP (keep-alive, batches). */
export function createNodeServer(chain: ChainGenerator): Server {
  const answer = createNodeAnswers(chain);
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: string;
      try {
        const payload: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        body = JSON.stringify(Array.isArray(payload) ? payload.map(answer) : answer(payload));
      } catch {
        body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
      }
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    });
  };
  return createServer({ keepAlive: true, keepAliveTimeout: 60_000 }, handle);
}
