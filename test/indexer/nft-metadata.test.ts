import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchNftMetadata, metadataUrl, type NftMetadataOptions } from '../../src/indexer/nft-metadata.js';

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
  assert.deepEqual(await fetchNftMetadata(`data:application/json;utf8,${encodeURIComponent(json)}`, options()), { metadata: document, error: null });
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
  assert.ok(Date.now() - started < 3_000);
  assert.match((await fetchNftMetadata('ar://abc', options())).error ?? '', /not served/);
});
