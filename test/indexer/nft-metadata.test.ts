import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { decodeFunctionResult, encodeFunctionData, parseAbi, type Hex } from 'viem';
import { createRpcClient } from '../../src/chain/rpc.js';
import { fetchNftMetadata, metadataUrl, type NftMetadataOptions } from '../../src/offchain/nft-metadata.js';
import { startNftMetadataStage } from '../../src/indexer/stages/nft-metadata-stage.js';
import { createTestDatabase } from '../support/database.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';

let server: Server;
let base: string;
const hits = new Map<string, number>();
const document = { name: 'Demo #1', image: 'ipfs://bafy/1.png', attributes: [{ trait_type: 'a', value: 'b' }] };

before(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    const hit = (hits.get(path) ?? 0) + 1;
    hits.set(path, hit);
    if (path === '/silent') return; // never answers
    if (path === '/flaky' && hit <= 2) return void response.writeHead(503).end();
    if (path === '/missing') return void response.writeHead(404).end();
    if (path === '/large') return void response.end(JSON.stringify({ padding: 'x'.repeat(5_000) }));
    if (path === '/text') return void response.end('not json');
    if (path === '/ipfs/bafy/meta.json' || path === '/ok' || path === '/flaky') return void response.end(JSON.stringify(document));
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const options = (): NftMetadataOptions => ({ ipfsGateway: `${base}/ipfs/`, timeoutMs: 500, maxBytes: 1_000, retries: 2 });

test('data: URIs, base64 and plain (percent-encoded or not), decode in place', async () => {
  const json = JSON.stringify(document);
  const base64 = `data:application/json;base64,${Buffer.from(json).toString('base64')}`;
  assert.deepEqual(await fetchNftMetadata(base64, options()), { metadata: document, error: null });
  assert.deepEqual(await fetchNftMetadata(`data:application/json,${json}`, options()), { metadata: document, error: null });
  assert.deepEqual(await fetchNftMetadata(`data:application/json;utf8,${encodeURIComponent(json)}`, options()), {
    metadata: document,
    error: null,
  });
  assert.match((await fetchNftMetadata('data:application/json,[1,2]', options())).error ?? '', /not a JSON object/);
  assert.match((await fetchNftMetadata('data:application/json,{"a":', options())).error ?? '', /not JSON/);
});

test('http(s) and ipfs:// through the gateway, with retries of 5xx', async () => {
  assert.deepEqual(await fetchNftMetadata(`${base}/ok`, options()), { metadata: document, error: null });
  assert.deepEqual(await fetchNftMetadata('ipfs://bafy/meta.json', options()), { metadata: document, error: null });
  assert.equal(metadataUrl('ipfs://ipfs/bafy/meta.json', 'https://gw.example/ipfs'), 'https://gw.example/ipfs/bafy/meta.json');
  assert.deepEqual(await fetchNftMetadata(`${base}/flaky`, options()), { metadata: document, error: null });
  assert.equal(hits.get('/flaky'), 3);
});

test('failures become errors: 404, too large, not JSON, no answer, an unserved scheme', async () => {
  assert.match((await fetchNftMetadata(`${base}/missing`, options())).error ?? '', /HTTP 404/);
  assert.equal(hits.get('/missing'), 1, '4xx is not retried');
  assert.match((await fetchNftMetadata(`${base}/large`, options())).error ?? '', /larger than 1000 bytes/);
  assert.match((await fetchNftMetadata(`${base}/text`, options())).error ?? '', /not JSON/);
  const started = Date.now();
  assert.match((await fetchNftMetadata(`${base}/silent`, { ...options(), retries: 1 })).error ?? '', /silent/);
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 3_000, `a silent server given up on after ${elapsed} ms, within 3,000`);
  assert.match((await fetchNftMetadata('ar://abc', options())).error ?? '', /not served/);
});

test('the NFT metadata stage reads the token URIs of a batch again after the node fails, never taking the failure for no URI', async (t) => {
  const chain = await startTokenChain();
  t.after(() => chain.anvil.stop());
  const db = await createTestDatabase();
  t.after(() => db.drop());
  // The first requests to the node (its Multicall3 probe, then the batch of tokenURI and uri calls) fail.
  const proxy = await startFaultProxy({ target: chain.anvil.rpcUrl, seed: 1, rates: { 'http-503': 1 }, limits: { 'http-503': 3 } });
  t.after(() => proxy.stop());
  await indexTokenChain(chain, db);
  const stage = startNftMetadataStage({
    pool: db.pool,
    client: createRpcClient({ url: proxy.url, retryCount: 0 }),
    logger: pino({ level: 'silent' }),
    fetch: { ipfsGateway: 'http://127.0.0.1:9/ipfs', timeoutMs: 1_000, maxBytes: 100_000, retries: 0 },
    batchSize: 16,
    pollIntervalMs: 20,
    backoff: { initialMs: 10, maxMs: 50 },
  });
  try {
    let pending = -1;
    await waitFor(
      async () => {
        pending = Number(
          (await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM token_instances WHERE metadata_fetched_at IS NULL')).rows[0]!.n,
        );
        return pending === 0;
      },
      () => `every NFT id's metadata is fetched (${pending} left)`,
      { intervalMs: 20 },
    );
  } finally {
    await stage.stop();
  }
  assert.equal(proxy.injected['http-503'], 3);

  const { rows } = await db.pool.query<{ token: Buffer; id: string; uri: string | null; fetched: boolean; error: string | null }>(
    `SELECT token_address AS token, token_id::text AS id, token_uri AS uri, metadata IS NOT NULL AS fetched, metadata_error AS error
     FROM token_instances ORDER BY token_address, token_id`,
  );
  const { erc721, erc1155 } = chain.scenario.contracts;
  const uriAbi = parseAbi(['function tokenURI(uint256) view returns (string)', 'function uri(uint256) view returns (string)']);
  const nodeUri = async (token: Hex, id: bigint): Promise<string | null> => {
    const functionName = token === erc1155.toLowerCase() ? 'uri' : 'tokenURI';
    const data = await chain.client
      .request<Hex>('eth_call', [{ to: token, data: encodeFunctionData({ abi: uriAbi, functionName, args: [id] }) }, 'latest'])
      .catch(() => null);
    return data === null
      ? null
      : decodeFunctionResult({ abi: uriAbi, functionName, data }).replaceAll('{id}', id.toString(16).padStart(64, '0'));
  };
  const expected = await Promise.all(
    rows.map(async ({ token, id }) => {
      const uri = await nodeUri(`0x${token.toString('hex')}`, BigInt(id));
      return { uri, fetched: uri !== null, error: uri === null ? 'the contract gives no token URI' : null };
    }),
  );
  assert.ok(rows.length > 16, `${rows.length} ids, more than one batch`);
  assert.deepEqual(
    rows.map(({ uri, fetched, error }) => ({ uri, fetched, error })),
    expected,
  );
  // Only the burnt ERC-721 #3 has no URI.
  assert.deepEqual(
    rows.filter((row) => row.uri === null).map((row) => [`0x${row.token.toString('hex')}`, row.id]),
    [[erc721.toLowerCase(), '3']],
  );
});
