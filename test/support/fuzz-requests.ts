import { type Agent, request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { ChainSubjects } from './endpoint-snapshot.js';
import { fuzzEnsName } from './names-and-tags.js';
import type { ServedRoute } from './served-paths.js';

/**
 * Malformed requests over every route the API serves and every parameter its schema declares,
 * generated from a seed (the same seed gives the same requests): path and query values valid,
 * malformed or mutated, repeated parameters, bad percent-encoding, raw bytes, methods, headers and
 * bodies. The fuzz test (test/api/fuzz.test.ts) and the fuzz benchmark (bench/api/fuzz.ts) send them.
 */

export interface FuzzRequest {
  method: string;
  /** As written on the request line: may hold malformed percent-encoding and raw bytes from 0x80 to 0xff. */
  path: string;
  headers: Record<string, string>;
  body: string | null;
  /** Sent without a Host header. */
  omitHost: boolean;
}

export interface FuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

/** Mulberry32: a small seeded generator, enough to replay a run from its seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Dice {
  int(below: number): number;
  one<T>(values: readonly T[]): T;
  chance(probability: number): boolean;
}

function dice(seed: number): Dice {
  const next = seededRandom(seed);
  const int = (below: number) => Math.floor(next() * below);
  return { int, one: (values) => values[int(values.length)]!, chance: (probability) => next() < probability };
}

const hex = (digits: number, char = 'a') => `0x${char.repeat(digits)}`;

// ASCII only: ÿ in upper case is U+0178, which a request line cannot carry.
const upperCase = (text: string) => text.replace(/[a-z]+/g, (letters) => letters.toUpperCase());

/** Values malformed for some parameter or all, already written as they go on the request line. */
const malformedValues: readonly string[] = [
  ...['', '%20', '+', '1e3', '0x10', '0b1', '0o7', '%2B1', '1.0', '-0', '-1', '00', '007', '1%20', '%201', '%091', '1%0A'],
  ...['Infinity', '-Infinity', 'NaN', '1e400', '-1e400', '9007199254740992', '9007199254740993', '2147483648', '-2147483649'],
  ...['9'.repeat(40), '9'.repeat(79), '9'.repeat(400), '1'.repeat(5000)],
  ...['null', 'undefined', 'true', '[]', '{}', '[1]', '{"a":1}', '__proto__', 'constructor', 'toString'],
  ...["'%20OR%201=1--", '%22;%20DROP%20TABLE%20blocks;--', '\\', '%', '%zz', '%0', '%00', 'a%00b', '%00%00'],
  ...['%C0%AF', '%ED%A0%80', '%FF%FE', '%E2%80%AE', '%F0%9F%92%A9', '\u00ff\u00fe', '\u00e9', '%2F', '%2F..%2F..', '..', '.'],
  ...[Array(25).fill('transfer').join(','), Array(500).fill('0xa9059cbb').join(','), ',,,,,', ',', 'ERC-20,ERC-20', '[ERC-20]', 'erc-721'],
  ...['0x', hex(39, '0'), hex(41, '0'), hex(40, 'G'), `0X${'a'.repeat(40)}`, hex(64, 'A'), hex(63), hex(65), hex(8)],
  ...['2024-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999999Z', '2024-01-01T23:59:60Z', '2024-01-01'],
  'a'.repeat(20_000),
];

const extraNames: readonly string[] = ['__proto__', 'constructor', 'x', 'type[]', 'a[b]', '', '%zz', '%00', 'items_count', '\u00ff'];

const methods: readonly string[] = ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE'];

const headerSets: readonly Record<string, string>[] = [
  { accept: 'text/html' },
  { accept: 'application/xml;q=0.9, */*;q=0.1' },
  { 'accept-encoding': 'gzip, deflate, br' },
  { 'content-type': 'application/json' },
  { 'content-type': 'multipart/form-data; boundary=x' },
  { 'x-forwarded-for': '1.2.3.4, ::1, garbage' },
  { 'if-none-match': '"x"', 'if-modified-since': 'yesterday' },
  { range: 'bytes=0-10' },
  { connection: 'close' },
  { 'x-big': 'a'.repeat(20_000) },
  Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-h${i}`, String(i)])),
];

/** Valid values by parameter name, from the indexed chain, so that requests reach the queries. */
function validValues(subjects: ChainSubjects): (name: string) => readonly string[] {
  const numbers = subjects.blocks.filter((b) => !b.startsWith('0x'));
  const ids = subjects.instances.map((i) => i.id);
  const orDefault = (values: string[], fallback: string[]) => (values.length > 0 ? values : fallback);
  const byName: Record<string, readonly string[]> = {
    address_hash: orDefault([...subjects.addresses, ...subjects.tokens], [hex(40, '1')]),
    token: orDefault(subjects.tokens, [hex(40, '1')]),
    token_contract_address_hash: orDefault(subjects.tokens, [hex(40, '1')]),
    transaction_hash: orDefault(subjects.transactions, [hex(64, '1')]),
    hash: orDefault(subjects.transactions, [hex(64, '1')]),
    block_number_or_hash: orDefault(subjects.blocks, ['1']),
    block_number: orDefault(numbers, ['1']),
    id: orDefault(ids, ['1']),
    token_id: ['null', ...ids],
    unique_token: orDefault(ids, ['1']),
    index: ['0', '1', '2', '5'],
    batch_index: ['0', '1'],
    transaction_index: ['0', '1'],
    items_count: ['50'],
    value: ['1', '1000000000000000000'],
    token_name: ['null', 'Demo', 'a'],
    token_type: ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404'],
    inserted_at: ['2024-05-01T12:00:00.000000Z'],
    type: ['ERC-20', 'ERC-721,ERC-1155', 'coin_transfer,contract_call', 'token_transfer', 'block', 'reorg', 'uncle', ''],
    filter: ['to', 'from', 'validated', 'pending', '', 'verified', 'unverified', 'empty', '3', 'solidity'],
    method: ['transfer', '0xa9059cbb', 'approve,mint'],
    topic: [hex(64, '0')],
    q: ['1', 'Sextant', 'sdt', fuzzEnsName, ...subjects.addresses.slice(0, 1)],
    // The Etherscan-style API (/api?module=…&action=…).
    module: ['account', 'logs', 'block', 'transaction', 'stats', 'contract'],
    action: [
      'balance',
      'txlist',
      'tokentx',
      'token1155tx',
      'txlistinternal',
      'getLogs',
      'gettxinfo',
      'getblockreward',
      'tokensupply',
      'getabi',
      'getsourcecode',
      'checkverifystatus',
      'getcontractcreation',
      'listcontracts',
      'verifyproxycontract',
      'checkproxyverification',
      'ethsupply',
    ],
    address: orDefault([...subjects.addresses, ...subjects.tokens], [hex(40, '1')]),
    contractaddress: orDefault(subjects.tokens, [hex(40, '1')]),
    txhash: orDefault(subjects.transactions, [hex(64, '1')]),
    blockno: orDefault(numbers, ['1']),
    fromBlock: ['0', 'latest'],
    toBlock: ['latest', '5'],
    topic0: [hex(64, '0')],
    topic0_1_opr: ['and', 'or'],
    page: ['1', '2'],
    offset: ['5', '100'],
    // The Etherscan-style API's sort, then the API v2 lists' sort and order.
    sort: ['asc', 'desc', 'balance', 'transactions_count', 'holders_count'],
    order: ['asc', 'desc'],
    smart_contract_id: ['1', '2', '1000'],
    coin_balance: ['null', '0', '1000000000000000000'],
    transactions_count: ['0', '1', '7'],
    guid: [`${'1'.repeat(40)}1`, 'Unknown'],
    // The stats service's lines (/api/v1/lines/{name}).
    name: ['newTxns', 'txnsGrowth', 'activeAccounts', 'averageBlockTime', 'gasUsedGrowth', 'noSuchLine'],
    from: ['2024-01-01', '2099-12-31'],
    to: ['2099-12-31', '2024-01-01'],
    resolution: ['DAY', 'WEEK', 'MONTH', 'YEAR', 'RESOLUTION_UNSPECIFIED'],
  };
  return (name) => (Object.hasOwn(byName, name) ? byName[name]! : ['1']);
}

function mutate(d: Dice, value: string): string {
  switch (d.int(6)) {
    case 0:
      return value.slice(0, d.int(value.length + 1));
    case 1:
      return value + d.one(['0', 'x', '%', '%00', ',', '\u00ff']);
    case 2:
      return upperCase(value);
    case 3:
      return `-${value}`;
    case 4:
      return `${value},${value}`;
    default:
      return value.repeat(1 + d.int(50));
  }
}

/** `count` requests from `seed` over these routes. */
export function fuzzRequests(seed: number, count: number, routes: readonly ServedRoute[], subjects: ChainSubjects): FuzzRequest[] {
  const d = dice(seed);
  const valid = validValues(subjects);
  const value = (name: string): string => {
    const roll = d.int(10);
    if (roll < 4) return d.one(valid(name));
    if (roll < 5) return mutate(d, d.one(valid(name)));
    return d.one(malformedValues);
  };
  const requests: FuzzRequest[] = [];
  for (let n = 0; n < count; n++) {
    const route = d.one(routes);
    let path = route.url.replace(/:([a-z_]+)/g, (_, name: string) => (d.chance(0.7) ? d.one(valid(name)) : value(name)));
    if (d.chance(0.05)) path = d.one([`${path}/`, path.replaceAll('/', '//'), `${path}/extra`, upperCase(path), `${path}/..`, `${path}#x`]);

    const pairs: [string, string][] = [];
    if (route.query.length > 0 && d.chance(0.3)) {
      // A whole set of paging members, one of them spoiled: these reach the keyset queries.
      for (const name of route.query) pairs.push([name, d.one(valid(name))]);
      const spoiled = d.int(pairs.length);
      pairs[spoiled] = [pairs[spoiled]![0], value(pairs[spoiled]![0])];
    } else {
      for (let k = d.int(5); k > 0; k--) {
        const name = route.query.length > 0 && d.chance(0.8) ? d.one(route.query) : d.one(extraNames);
        pairs.push([name, value(name)]);
      }
    }
    if (pairs.length > 0 && d.chance(0.1)) pairs.push(d.one(pairs));
    const separator = d.chance(0.05) ? d.one(['&&', ';', '&amp;']) : '&';
    const query = pairs.map(([name, v]) => (d.chance(0.03) ? name : `${name}=${v}`)).join(separator);
    if (query !== '' || d.chance(0.02)) path += `?${query}`;

    const roll = d.int(100);
    const method = roll < 85 ? 'GET' : roll < 90 ? 'HEAD' : d.one(methods);
    const headers: Record<string, string> = d.chance(0.15) ? { ...d.one(headerSets) } : {};
    const body = d.chance(0.03) ? 'x'.repeat(1 + d.int(100_000)) : null;
    // Framed, or Node's client sends a GET's body as bytes after the request, which the server reads as a malformed next one.
    if (body !== null)
      Object.assign(headers, d.chance(0.7) ? { 'content-length': String(body.length) } : { 'transfer-encoding': 'chunked' });
    requests.push({ method, path, headers, body, omitHost: d.chance(0.02) });
  }
  // And one plain request per route, valid values only (a search needs its q), so that each route has a valid request to answer.
  for (const route of routes) {
    const path = route.url.replace(/:([a-z_]+)/g, (_, name: string) => valid(name)[0]!);
    const query = route.query.includes('q') ? `?q=${valid('q')[0]}` : '';
    requests.push({ method: 'GET', path: path + query, headers: {}, body: null, omitHost: false });
  }
  return requests;
}

/** Sends one request exactly as generated (no URL normalisation), over the agent's connections. */
export function sendFuzzRequest(base: URL, fuzz: FuzzRequest, agent: Agent): Promise<FuzzAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: fuzz.method,
        path: fuzz.path,
        headers: fuzz.headers,
        setHost: !fuzz.omitHost,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: decoded(res.headers['content-encoding'], Buffer.concat(chunks)).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
      },
    );
    // Writing a body the server refused may fail once it has answered and closed: the answer is what counts.
    req.on('error', reject);
    if (fuzz.body !== null) req.write(fuzz.body);
    req.end();
  });
}

/** The body as the API wrote it, before the compression the request's Accept-Encoding allowed; one that does not decode stays as sent. */
function decoded(encoding: string | undefined, body: Buffer): Buffer {
  try {
    if (body.length > 0 && encoding === 'br') return brotliDecompressSync(body);
    if (body.length > 0 && encoding === 'gzip') return gunzipSync(body);
  } catch {
    // Reported as a body that is not JSON.
  }
  return body;
}

/** A stack frame, a source path or SQL in an answer: what a client must never see. */
const leak =
  /\bat [\w.<>]+ \(|\.(ts|js):\d+|node_modules|\b(SELECT|INSERT|UPDATE|DELETE)\b.*\b(FROM|INTO|SET|WHERE)\b|syntax error|violates|relation "|column "/;

/** What is wrong with an answer (null: nothing): a 5xx, no nosniff, a body that is not JSON (but a preflight's empty one), a leak, or too slow. */
export function fuzzAnswerProblem(fuzz: FuzzRequest, answer: FuzzAnswer, boundMs: number): string | null {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (answer.ms > boundMs) return `answered in ${Math.round(answer.ms)} ms, over ${boundMs} ms`;
  if (answer.headers['x-content-type-options'] !== 'nosniff') return 'no X-Content-Type-Options: nosniff';
  if (fuzz.method === 'HEAD') return null;
  // A CORS preflight is answered on every path, with no body.
  if (fuzz.method === 'OPTIONS' && answer.status === 204) return answer.body === '' ? null : 'a 204 with a body';
  if (!String(answer.headers['content-type']).startsWith('application/json')) return `content-type ${answer.headers['content-type']}`;
  try {
    JSON.parse(answer.body);
  } catch {
    return 'a body that is not JSON';
  }
  if (answer.status !== 200 && leak.test(answer.body)) return 'a stack trace, source path or SQL in the body';
  return null;
}

/** A request as a line a reader can replay with curl. */
export const describeFuzzRequest = (fuzz: FuzzRequest): string =>
  `${fuzz.method} ${fuzz.path.length > 300 ? `${fuzz.path.slice(0, 300)}…` : fuzz.path}` +
  `${fuzz.omitHost ? ' (no Host)' : ''}${fuzz.body === null ? '' : ` (body of ${fuzz.body.length} bytes)`}` +
  `${Object.keys(fuzz.headers).length > 0 ? ` headers ${Object.keys(fuzz.headers).slice(0, 3).join(', ')}` : ''}`;

/** The routes that take a request body, with the parameters of their paths. */
export const bodyRoutes: readonly { url: string; values: Record<string, readonly string[]> }[] = [
  {
    url: '/api/v2/smart-contracts/:address_hash/verification/via/:method',
    values: { method: ['flattened-code', 'standard-input', 'multi-part', 'sourcify', 'vyper-code', 'x'] },
  },
];

const boundary = 'sextantfuzz';

/** A multipart form of these parts, or a spoiled one: a missing end, another boundary, a part without headers. */
function multipart(d: Dice, parts: { name: string; filename?: string; content: string }[]): { body: string; type: string } {
  const encoded = parts.map(
    (p) =>
      `--${boundary}\r\ncontent-disposition: form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}\r\n` +
      `${p.filename === undefined ? '' : 'content-type: application/json\r\n'}\r\n${p.content}\r\n`,
  );
  const whole = `${encoded.join('')}--${boundary}--\r\n`;
  const body = d.one([
    whole,
    whole,
    whole.slice(0, d.int(whole.length)),
    whole.replaceAll('\r\n', '\n'),
    `--${boundary}\r\n\r\nno headers`,
  ]);
  return {
    body,
    type: d.one([
      `multipart/form-data; boundary=${boundary}`,
      `multipart/form-data; boundary=${boundary}`,
      'multipart/form-data',
      'multipart/form-data; boundary="',
    ]),
  };
}

/** A source to compile: plausible, broken, or one that takes the compiler long. */
function source(d: Dice): string {
  return d.one([
    'pragma solidity ^0.8.0; contract A { uint public x = 1; }',
    'contract {',
    'a'.repeat(1 + d.int(50_000)),
    // Deep nesting: slow to parse and to compile.
    `contract Deep { function f() public pure returns (uint) { return ${'('.repeat(3000)}1${')'.repeat(3000)}; } }`,
    '\u0000\u00ff',
  ]);
}

/** `count` requests with bodies (JSON, forms, broken and huge) to the routes that take one. */
export function fuzzBodyRequests(seed: number, count: number, subjects: ChainSubjects): FuzzRequest[] {
  const d = dice(seed);
  const valid = validValues(subjects);
  const requests: FuzzRequest[] = [];
  for (let n = 0; n < count; n++) {
    const route = d.one(bodyRoutes);
    const path = route.url.replace(/:([a-z_]+)/g, (_, name: string) =>
      d.chance(0.85) ? d.one(route.values[name] ?? valid(name)) : d.one(malformedValues),
    );
    const field = () =>
      d.chance(0.6) ? d.one(['v0.8.37+commit.f401782d', 'latest', 'true', '200', 'mit', '{}', '']) : d.one(malformedValues);
    const fields = [
      'compiler_version',
      'contract_name',
      'optimization_runs',
      'is_optimization_enabled',
      'evm_version',
      'libraries',
      'license_type',
      'constructor_args',
      'autodetect_constructor_args',
      'chosen_contract_index',
    ];
    const chosen = fields.filter(() => d.chance(0.5));
    let body: string;
    let type: string;
    switch (d.int(6)) {
      case 0: {
        const json = Object.fromEntries([...chosen.map((name) => [name, field()]), ['source_code', source(d)]]);
        body = d.chance(0.8) ? JSON.stringify(json) : JSON.stringify(json).slice(0, d.int(200));
        type = d.one(['application/json', 'application/json; charset=utf-8', 'text/plain']);
        break;
      }
      case 1:
      case 2: {
        const files = Array.from({ length: d.int(4) }, (_, i) => ({
          name: `files[${i}]`,
          filename: d.one(['input.json', 'A.sol', 'metadata.json', '../../etc/passwd', '']),
          content: d.chance(0.5)
            ? JSON.stringify({ language: 'Solidity', sources: { 'A.sol': { content: source(d) } }, settings: {} })
            : source(d),
        }));
        ({ body, type } = multipart(d, [...chosen.map((name) => ({ name, content: field() })), ...files]));
        break;
      }
      case 3:
        // Larger than a form may be.
        ({ body, type } = multipart(d, [{ name: 'files[0]', filename: 'big.json', content: 'x'.repeat(11 * 1024 * 1024) }]));
        break;
      case 4:
        // Well formed: these are taken, and their compiles run.
        ({ body, type } = multipart(d, [
          { name: 'compiler_version', content: 'v0.8.37+commit.f401782d' },
          {
            name: 'files[0]',
            filename: 'input.json',
            content: JSON.stringify({ language: 'Solidity', sources: { 'A.sol': { content: source(d) } } }),
          },
        ]));
        break;
      default:
        body = d.one(['', 'not json', '[]', 'null', '{"__proto__":{"x":1}}', '\u00ff\u00fe']);
        type = d.one(['application/json', 'application/x-www-form-urlencoded', 'application/octet-stream']);
    }
    const headers: Record<string, string> = { 'content-type': type };
    Object.assign(headers, d.chance(0.9) ? { 'content-length': String(Buffer.byteLength(body)) } : { 'transfer-encoding': 'chunked' });
    requests.push({ method: 'POST', path, headers, body, omitHost: false });
  }
  return requests;
}
