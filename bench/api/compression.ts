/**
 * `npm run bench:compression -- [--url http://localhost:4000] [--rounds 200]`: what compressing a
 * typical answer costs and what it saves. Fetches three answers from a running Sextant (a 50-item E2
 * page, the longest token transfers page of its senders, the newest transaction's detail), then compresses each body the way
 * @fastify/compress does (zlib, synchronously for bodies this size) with gzip at levels 1, 6 (the
 * default) and 9 and brotli at qualities 1, 4, 6 and 11, timing the CPU per answer (median of the
 * rounds) and printing the bytes left.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { compressionSettings } from '../../src/api/compression.js';

function option(args: readonly string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1]! : fallback;
}

const args = process.argv.slice(2);
const base = new URL(option(args, '--url', 'http://localhost:4000'));
const rounds = Number(option(args, '--rounds', '200'));

async function body(path: string): Promise<string> {
  const response = await fetch(new URL(path, base));
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
  return response.text();
}

async function answers(): Promise<{ name: string; body: string }[]> {
  const page = await body('/api/v2/transactions');
  const first = (JSON.parse(page) as { items: { hash: string; from: { hash: string } }[] }).items[0];
  if (first === undefined) throw new Error('no transactions indexed yet');
  return [
    { name: 'E2 page (50 transactions)', body: page },
    { name: 'E8 page (token transfers)', body: await largestTokenTransfersPage(page) },
    { name: 'transaction detail', body: await body(`/api/v2/transactions/${first.hash}`) },
  ];
}

/** The longest first E8 page among the senders of the E2 page. */
async function largestTokenTransfersPage(page: string): Promise<string> {
  const senders = new Set((JSON.parse(page) as { items: { from: { hash: string } }[] }).items.map((item) => item.from.hash));
  let largest = '';
  for (const sender of senders) {
    const answer = await body(`/api/v2/addresses/${sender}/token-transfers`);
    if (answer.length > largest.length) largest = answer;
  }
  return largest;
}

const codecs: { name: string; run: (input: Buffer) => Buffer }[] = [
  ...[1, 6, 9].map((level) => ({ name: `gzip ${level}`, run: (input: Buffer) => gzipSync(input, { level }) })),
  ...[1, 4, 6, 11].map((quality) => ({
    name: `br ${quality}`,
    run: (input: Buffer) => brotliCompressSync(input, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } }),
  })),
];

function medianMs(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = process.cpuUsage();
    run();
    const used = process.cpuUsage(started);
    times.push((used.user + used.system) / 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const rows: string[] = ['| answer | bytes | codec | bytes after | saved | CPU ms per answer (median) |', '|---|---|---|---|---|---|'];
for (const answer of await answers()) {
  const input = Buffer.from(answer.body);
  for (const codec of codecs) {
    codec.run(input); // warm up
    const size = codec.run(input).length;
    const ms = medianMs(() => codec.run(input));
    const saved = `${Math.round((1 - size / input.length) * 100)}%`;
    rows.push(`| ${answer.name} | ${input.length} | ${codec.name} | ${size} | ${saved} | ${ms.toFixed(3)} |`);
  }
}
console.log(rows.join('\n'));
console.log(
  `\nserved: br quality ${compressionSettings.brotliQuality}, gzip level ${compressionSettings.gzipLevel} (-1: 6), from ${compressionSettings.thresholdBytes} bytes`,
);
