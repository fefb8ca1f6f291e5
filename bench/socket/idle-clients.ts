/**
 * Websocket clients held idle against `sextant serve`: the API process's memory before they connect,
 * once they have joined, along the hold and after they left, and the time one written block takes to
 * reach all of them (one NOTIFY, one read, one frame encoded for all).
 *
 * npm run build && node --import tsx bench/socket/idle-clients.ts [--clients 1000] [--hold-seconds 60]
 * PostgreSQL: BENCH_DATABASE_SERVER, else the tests' server (postgresql://postgres@127.0.0.1:5432).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import WebSocket from 'ws';
import { migrate } from '../../src/store/migrate.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { syntheticChain } from '../../test/support/synthetic-chain.js';
import { freePort, startNodeChild } from '../api/child-process.js';
import { megabytes, readMemory } from '../index/process-memory.js';

const { values } = parseArgs({
  options: { clients: { type: 'string', default: '1000' }, 'hold-seconds': { type: 'string', default: '60' } },
});
const clientCount = Number(values.clients);
const holdMs = Number(values['hold-seconds']) * 1000;
const server = process.env.BENCH_DATABASE_SERVER ?? 'postgresql://postgres@127.0.0.1:5432';
// Phoenix's JS client sends one every 30 s; the server drops a client silent for 60 s.
const heartbeatMs = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const name = `sextant_bench_socket_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${server}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    return await work(`${server}/${name}`);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

interface BenchClient {
  socket: WebSocket;
  /** When the new_block push arrived. */
  newBlockAt: number | null;
}

async function connect(base: string, ref: number): Promise<BenchClient> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/socket/v2/websocket?vsn=2.0.0`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const client: BenchClient = { socket, newBlockAt: null };
  socket.on('message', (data) => {
    const [, , , event] = JSON.parse(data.toString()) as unknown[];
    if (event === 'new_block') client.newBlockAt ??= Date.now();
  });
  socket.send(JSON.stringify(['1', String(ref), 'blocks:new_block', 'phx_join', {}]));
  socket.send(JSON.stringify(['2', String(ref + 1), 'transactions:new_transaction', 'phx_join', {}]));
  return client;
}

await withDatabase(async (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await migrate(pool);
  await writeBlockBundles(pool, syntheticChain({ from: 0n, to: 99n, transactionsPerBlock: () => 3 }));
  const port = await freePort();
  const api = await startNodeChild(
    ['dist/cli/main.js', 'serve'],
    { DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1' },
    port,
    '/health',
  );
  const rows: [string, string][] = [];
  const sample = async (label: string) => {
    const memory = await readMemory(api.pid);
    rows.push([label, memory === null ? 'gone' : `${megabytes(memory.rss)} RSS (peak ${megabytes(memory.peak)})`]);
    console.log(`${label}: ${rows.at(-1)![1]}`);
  };
  try {
    await sleep(2000);
    await sample('before any client');
    const clients: BenchClient[] = [];
    for (let i = 0; i < clientCount; i++) clients.push(await connect(api.baseUrl, i * 2));
    await sleep(2000);
    await sample(`${clientCount} clients joined`);
    const heartbeats = setInterval(() => {
      for (const [i, c] of clients.entries()) c.socket.send(JSON.stringify([null, `hb${i}`, 'phoenix', 'heartbeat', {}]));
    }, heartbeatMs);
    for (let held = 0; held < holdMs; held += 15_000) {
      await sleep(Math.min(15_000, holdMs - held));
      await sample(`held ${Math.min(held + 15_000, holdMs) / 1000} s`);
    }
    clearInterval(heartbeats);
    const open = clients.filter((c) => c.socket.readyState === WebSocket.OPEN).length;
    console.log(`${open} of ${clientCount} clients still connected after the hold`);

    const written = Date.now();
    await writeBlockBundles(pool, syntheticChain({ from: 100n, to: 100n, transactionsPerBlock: () => 3 }));
    const deadline = written + 30_000;
    while (clients.some((c) => c.newBlockAt === null) && Date.now() < deadline) await sleep(10);
    const reached = clients.filter((c) => c.newBlockAt !== null).map((c) => c.newBlockAt! - written);
    reached.sort((a, b) => a - b);
    console.log(
      `one written block reached ${reached.length} of ${clientCount} clients: first after ${reached[0]} ms, ` +
        `median ${reached[Math.floor(reached.length / 2)]} ms, last ${reached.at(-1)} ms`,
    );
    await sample('after the push');
    for (const c of clients) c.socket.close();
    await sleep(3000);
    await sample('3 s after every client left');
  } finally {
    await api.stop();
    // The forced drop that follows ends connections pool.end() is still closing: expected, not a failure.
    pool.on('error', () => undefined);
    await pool.end();
  }
  console.log(`\n| moment | API process memory |\n|---|---|\n${rows.map(([l, m]) => `| ${l} | ${m} |`).join('\n')}`);
});
