import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Pool } from 'pg';
import { type Hex, formatEther, formatGwei } from 'viem';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { waitForMined } from '../support/mined.js';
import { dailyFigureMismatches } from '../support/stored-counters.js';
import { storeVerification } from '../support/stored-verification.js';
import { indexTokenChainWithContracts, startTokenChain, type TokenChain } from '../support/token-chain.js';
import { type RunningApi, startApi } from './http.js';

/**
 * The charts on the token chain, mined over three UTC days (genesis three days ago, a day later two
 * more transfers, then today one more, so that yesterday has no block), traced and indexed, and two of
 * its contracts verified: Blockscout's
 * transaction and market charts, and the stats service's counters, lines and pages, each compared with
 * figures computed here from the indexed rows (not from daily_figures).
 */

const dayMs = 24 * 60 * 60 * 1000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let chain: TokenChain;
let db: TestDatabase;
let api: RunningApi;

async function mineLaterDays(): Promise<void> {
  const { client } = chain;
  const [from] = await client.request<string[]>('eth_accounts', []);
  const send = async (to: string) => waitForMined(client, await client.request<Hex>('eth_sendTransaction', [{ from, to, value: '0x1' }]));
  await client.request('evm_increaseTime', [86_400]);
  await send('0x00000000000000000000000000000000000000a1');
  await send('0x00000000000000000000000000000000000000a2');
  await client.request('evm_setNextBlockTimestamp', [Math.floor(Date.now() / 1000)]);
  await send('0x00000000000000000000000000000000000000a3');
}

before(async () => {
  chain = await startTokenChain({ extraArgs: ['--timestamp', String(Math.floor((Date.now() - 3 * dayMs) / 1000))] });
  await mineLaterDays();
  db = await createTestDatabase();
  await indexTokenChainWithContracts(chain, db);
  const contracts = await db.pool.query<{ hash: string }>(
    `SELECT '0x' || encode(hash, 'hex') AS hash FROM addresses WHERE is_contract ORDER BY hash LIMIT 2`,
  );
  for (const [i, c] of contracts.rows.entries()) await storeVerification(db.pool, c.hash as `0x${string}`, `charts-${i}`);
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
  await chain?.anvil.stop();
});

interface DayRows {
  blocks: number;
  transactions: number;
  gasUsed: bigint;
  intervals: number;
  seconds: number;
  senders: Set<string>;
  newAccounts: number;
  contracts: number;
  verified: number;
  transfers: number;
  successful: number;
  nativeTransfers: number;
  fees: bigint;
  priced: number;
  gasPrices: bigint;
  gasLimit: bigint;
  sized: number;
  size: bigint;
}

/** Each UTC day's figures, counted here from the indexed rows by the rules the README states. */
async function daysFromRows(pool: Pool): Promise<Map<string, DayRows>> {
  const days = new Map<string, DayRows>();
  const dayOf = (day: string) => {
    const known = days.get(day);
    if (known !== undefined) return known;
    const fresh = {
      blocks: 0,
      transactions: 0,
      gasUsed: 0n,
      intervals: 0,
      seconds: 0,
      senders: new Set<string>(),
      newAccounts: 0,
      contracts: 0,
      verified: 0,
      transfers: 0,
      successful: 0,
      nativeTransfers: 0,
      fees: 0n,
      priced: 0,
      gasPrices: 0n,
      gasLimit: 0n,
      sized: 0,
      size: 0n,
    };
    days.set(day, fresh);
    return fresh;
  };
  const blocks = await pool.query<{ day: string; gas_used: string; gas_limit: string; size: string | null; seconds: number | null }>(
    `SELECT to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, gas_used::text, gas_limit::text, size::text,
            CASE WHEN lag(number) OVER w = number - 1 AND lag(hash) OVER w = parent_hash
                 THEN extract(epoch FROM timestamp - lag(timestamp) OVER w)::float END AS seconds
     FROM blocks WHERE consensus WINDOW w AS (ORDER BY number)`,
  );
  for (const b of blocks.rows) {
    const d = dayOf(b.day);
    d.blocks += 1;
    d.gasUsed += BigInt(b.gas_used);
    d.gasLimit += BigInt(b.gas_limit);
    if (b.size !== null) {
      d.sized += 1;
      d.size += BigInt(b.size);
    }
    if (b.seconds !== null) {
      d.intervals += 1;
      d.seconds += b.seconds;
    }
  }
  const transactions = await pool.query<{
    day: string;
    sender: string;
    creates: boolean;
    status: number | null;
    input: string;
    gas_used: string;
    gas_price: string | null;
  }>(
    `SELECT to_char(b.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, encode(t.from_address, 'hex') AS sender,
            t.created_contract IS NOT NULL AND t.status = 1 AS creates, t.status, encode(t.input, 'hex') AS input,
            t.gas_used::text, t.gas_price::text
     FROM transactions t JOIN blocks b ON b.hash = t.block_hash AND b.consensus ORDER BY b.number`,
  );
  const seen = new Set<string>();
  for (const t of transactions.rows) {
    const d = dayOf(t.day);
    d.transactions += 1;
    d.senders.add(t.sender);
    if (!seen.has(t.sender)) d.newAccounts += 1;
    seen.add(t.sender);
    if (t.creates) d.contracts += 1;
    if (t.status !== 0) d.successful += 1;
    if (t.input === '') d.nativeTransfers += 1;
    if (t.gas_price !== null) {
      d.fees += BigInt(t.gas_used) * BigInt(t.gas_price);
      d.priced += 1;
      d.gasPrices += BigInt(t.gas_price);
    }
  }
  const verified = await pool.query<{ day: string; n: number }>(
    `SELECT to_char(verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS n FROM verified_contracts GROUP BY 1`,
  );
  for (const v of verified.rows) dayOf(v.day).verified += v.n;
  const internal = await pool.query<{ day: string; n: number }>(
    `SELECT to_char(b.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS n
     FROM internal_transactions i JOIN blocks b ON b.hash = i.block_hash AND b.consensus
     WHERE i.index > 0 AND i.type IN ('create', 'create2') AND i.error IS NULL GROUP BY 1`,
  );
  for (const i of internal.rows) dayOf(i.day).contracts += i.n;
  const transfers = await pool.query<{ day: string; n: number }>(
    `SELECT day, count(*)::int AS n FROM (
       SELECT DISTINCT to_char(b.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, t.block_hash, t.log_index
       FROM token_transfers t JOIN blocks b ON b.hash = t.block_hash AND b.consensus) l GROUP BY 1`,
  );
  for (const t of transfers.rows) dayOf(t.day).transfers += t.n;
  return days;
}

type Resolution = 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';

/** The first day of the period holding `day`: weeks begin on Monday. */
function periodOf(day: string, resolution: Resolution): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (resolution === 'WEEK') return utcDay(date.getTime() - ((date.getUTCDay() + 6) % 7) * dayMs);
  if (resolution === 'MONTH') return `${day.slice(0, 7)}-01`;
  if (resolution === 'YEAR') return `${day.slice(0, 4)}-01-01`;
  return day;
}

function nextPeriod(period: string, resolution: Resolution): string {
  const date = new Date(`${period}T00:00:00Z`);
  if (resolution === 'WEEK') return utcDay(date.getTime() + 7 * dayMs);
  if (resolution === 'MONTH') return utcDay(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
  if (resolution === 'YEAR') return utcDay(Date.UTC(date.getUTCFullYear() + 1, 0, 1));
  return utcDay(date.getTime() + dayMs);
}

const sum = <T extends number | bigint>(ds: DayRows[], figure: (d: DayRows) => T, zero: T): T =>
  ds.reduce((n, d) => ((n as bigint) + (figure(d) as bigint)) as T, zero);
/** A mean to the unit, halves away from zero; 0 without anything to divide by. */
const rounded = (total: bigint, count: bigint) => (count === 0n ? 0n : (2n * total + count) / (2n * count));
const share = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1e10) / 1e10);

/** Per line: a period's value from its days' figures, and whether the line is a running total. */
const lines: Record<string, { value: (days: DayRows[]) => number | bigint; growth?: true }> = {
  newTxns: { value: (ds) => ds.reduce((n, d) => n + d.transactions, 0) },
  txnsGrowth: { value: (ds) => ds.reduce((n, d) => n + d.transactions, 0), growth: true },
  newBlocks: { value: (ds) => ds.reduce((n, d) => n + d.blocks, 0) },
  activeAccounts: { value: (ds) => new Set(ds.flatMap((d) => [...d.senders])).size },
  averageBlockTime: {
    value: (ds) => {
      const intervals = ds.reduce((n, d) => n + d.intervals, 0);
      return intervals === 0 ? 0 : Math.round((ds.reduce((n, d) => n + d.seconds, 0) / intervals) * 1000) / 1000;
    },
  },
  newTokenTransfers: { value: (ds) => ds.reduce((n, d) => n + d.transfers, 0) },
  gasUsedGrowth: { value: (ds) => ds.reduce((n, d) => n + d.gasUsed, 0n), growth: true },
  newContracts: { value: (ds) => ds.reduce((n, d) => n + d.contracts, 0) },
  contractsGrowth: { value: (ds) => ds.reduce((n, d) => n + d.contracts, 0), growth: true },
  newAccounts: { value: (ds) => sum(ds, (d) => d.newAccounts, 0) },
  accountsGrowth: { value: (ds) => sum(ds, (d) => d.newAccounts, 0), growth: true },
  newVerifiedContracts: { value: (ds) => sum(ds, (d) => d.verified, 0) },
  verifiedContractsGrowth: { value: (ds) => sum(ds, (d) => d.verified, 0), growth: true },
  txnsSuccessRate: {
    value: (ds) =>
      share(
        sum(ds, (d) => d.successful, 0),
        sum(ds, (d) => d.transactions, 0),
      ),
  },
  newNativeCoinTransfers: { value: (ds) => sum(ds, (d) => d.nativeTransfers, 0) },
  txnsFee: { value: (ds) => Number(formatEther(sum(ds, (d) => d.fees, 0n))) },
  averageTxnFee: {
    value: (ds) =>
      Number(
        formatEther(
          rounded(
            sum(ds, (d) => d.fees, 0n),
            BigInt(sum(ds, (d) => d.transactions, 0)),
          ),
        ),
      ),
  },
  averageGasPrice: {
    value: (ds) =>
      Number(
        formatGwei(
          rounded(
            sum(ds, (d) => d.gasPrices, 0n),
            BigInt(sum(ds, (d) => d.priced, 0)),
          ),
        ),
      ),
  },
  averageBlockSize: {
    value: (ds) =>
      rounded(
        sum(ds, (d) => d.size, 0n),
        BigInt(sum(ds, (d) => d.sized, 0)),
      ),
  },
  averageGasLimit: {
    value: (ds) =>
      rounded(
        sum(ds, (d) => d.gasLimit, 0n),
        BigInt(sum(ds, (d) => d.blocks, 0)),
      ),
  },
  averageGasUsed: {
    value: (ds) =>
      rounded(
        sum(ds, (d) => d.gasUsed, 0n),
        BigInt(sum(ds, (d) => d.blocks, 0)),
      ),
  },
  networkUtilization: { value: (ds) => share(Number(sum(ds, (d) => d.gasUsed, 0n)), Number(sum(ds, (d) => d.gasLimit, 0n))) },
};

/** The points a line should have, over the days from the chain's first to its last that are within from..to. */
function expectedLine(days: Map<string, DayRows>, name: string, resolution: Resolution, from = '0000-01-01', to = '9999-12-31') {
  const line = lines[name]!;
  const sorted = [...days.keys()].sort();
  const first = sorted[0]! > from ? sorted[0]! : from;
  const last = sorted.at(-1)! < to ? sorted.at(-1)! : to;
  if (first > last) return [];
  const within = sorted.filter((day) => day >= first && day <= last);
  let total: number | bigint = line.growth ? line.value(sorted.filter((day) => day < first).map((day) => days.get(day)!)) : 0;
  const points: { date: string; date_to: string; value: string }[] = [];
  for (let period = periodOf(first, resolution); period <= last; period = nextPeriod(period, resolution)) {
    const end = nextPeriod(period, resolution);
    const value = line.value(within.filter((day) => day >= period && day < end).map((day) => days.get(day)!));
    total = line.growth ? (typeof total === 'bigint' ? total + (value as bigint) : total + (value as number)) : value;
    points.push({ date: period, date_to: utcDay(new Date(`${end}T00:00:00Z`).getTime() - dayMs), value: String(total) });
  }
  return points;
}

const plotted = (chart: { date: string; date_to: string; value: string }[]) =>
  chart.map((p) => ({ date: p.date, date_to: p.date_to, value: String(Number(p.value)) }));
const asNumbers = (points: { date: string; date_to: string; value: string }[]) =>
  points.map((p) => ({ ...p, value: String(Number(p.value)) }));

test('the daily figures kept with the writes equal a GROUP BY over the indexed rows of three days', async () => {
  assert.deepEqual(await dailyFigureMismatches(db.pool), []);
  const days = await daysFromRows(db.pool);
  const today = utcDay(Date.now());
  assert.deepEqual([...days.keys()].sort(), [utcDay(Date.now() - 3 * dayMs), utcDay(Date.now() - 2 * dayMs), today]);
  const contracts = [...days.values()].reduce((n, d) => n + d.contracts, 0);
  assert.ok(contracts > 4, `contracts created by transactions and by frames: ${contracts}`);
});

test("Blockscout's transactions chart: the 31 full days up to yesterday, newest first, and a market chart without prices", async () => {
  const days = await daysFromRows(db.pool);
  const { status, body } = await api.get('/api/v2/stats/charts/transactions');
  assert.equal(status, 200);
  const expected = expectedLine(days, 'newTxns', 'DAY', utcDay(Date.now() - 31 * dayMs), utcDay(Date.now() - dayMs))
    .reverse()
    .map((p) => ({ date: p.date, transactions_count: Number(p.value) }));
  assert.deepEqual(body.chart_data, expected);
  assert.deepEqual(
    expected.slice(0, 2).map((p) => p.transactions_count),
    [0, 2],
    'yesterday without a block, two days ago two transfers; today is not full and left out',
  );
  assert.ok(expected[2]!.transactions_count > 10);

  assert.deepEqual((await api.get('/api/v2/stats/charts/market')).body, { available_supply: 0, chart_data: [] });
});

test('every line at every resolution equals the figures counted from the indexed rows, with and without bounds', async () => {
  const days = await daysFromRows(db.pool);
  const listed = (await api.get('/api/v1/lines')).body as { sections: { charts: { id: string; resolutions: string[] }[] }[] };
  const ids = listed.sections.flatMap((s) => s.charts.map((c) => c.id));
  assert.deepEqual(ids.sort(), Object.keys(lines).sort());
  const twoDaysAgo = utcDay(Date.now() - 2 * dayMs);
  for (const name of ids) {
    for (const resolution of ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const) {
      const { status, body } = await api.get(`/api/v1/lines/${name}?resolution=${resolution}`);
      assert.equal(status, 200, `${name} ${resolution}`);
      assert.deepEqual(plotted(body.chart), asNumbers(expectedLine(days, name, resolution)), `${name} ${resolution}`);
      assert.equal(body.info.id, name);
      const bounded = await api.get(`/api/v1/lines/${name}?resolution=${resolution}&from=${twoDaysAgo}&to=${twoDaysAgo}`);
      assert.deepEqual(
        plotted(bounded.body.chart),
        asNumbers(expectedLine(days, name, resolution, twoDaysAgo, twoDaysAgo)),
        `${name} ${resolution} bounded`,
      );
    }
  }
  const daily = (await api.get('/api/v1/lines/newTxns')).body.chart as { date: string; value: string; is_approximate: boolean }[];
  assert.equal(daily.length, 4, 'three days with blocks and yesterday between them, plotted as 0');
  assert.equal(daily[2]!.value, '0');
  assert.deepEqual(
    daily.map((p) => p.is_approximate),
    [false, false, false, true],
    'only today is still counting',
  );
  assert.deepEqual((await api.get('/api/v1/lines/newTxns?from=2099-01-01')).body.chart, []);
});

test('counters and pages: the totals, the last 24 hours and the contracts as the indexed rows count them', async () => {
  const { rows } = await db.pool.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM blocks WHERE consensus)::text AS blocks, (SELECT count(*) FROM transactions)::text AS transactions,
            (SELECT count(*) FROM addresses WHERE is_contract)::text AS contracts,
            (SELECT count(*) FROM transactions t JOIN blocks b ON b.hash = t.block_hash WHERE b.timestamp > now() - interval '24 hours')::text AS day`,
  );
  const expected = rows[0]!;
  const counters = (await api.get('/api/v1/counters')).body.counters as { id: string; value: string }[];
  const value = (id: string) => counters.find((c) => c.id === id)?.value;
  assert.equal(value('totalBlocks'), expected.blocks);
  assert.equal(value('totalTxns'), expected.transactions);
  assert.equal(value('totalContracts'), expected.contracts);
  assert.equal(value('newTxns24h'), expected.day);
  assert.equal(expected.day, '1', "today's transfer only");
  assert.ok(Number(value('averageBlockTime')) > 0);

  const main = (await api.get('/api/v1/pages/main')).body;
  assert.equal(main.total_blocks.value, expected.blocks);
  assert.equal(main.total_transactions.value, expected.transactions);
  assert.equal(main.yesterday_transactions.value, '0', 'yesterday had no block');
  const days = await daysFromRows(db.pool);
  assert.deepEqual(
    plotted(main.daily_new_transactions.chart),
    asNumbers(expectedLine(days, 'newTxns', 'DAY', utcDay(Date.now() - 30 * dayMs))),
  );

  const transactions = (await api.get('/api/v1/pages/transactions')).body;
  assert.equal(transactions.transactions_24h.value, expected.day);
  assert.equal(transactions.pending_transactions_30m.value, '0');
  const contracts = (await api.get('/api/v1/pages/contracts')).body;
  assert.equal(contracts.total_contracts.value, expected.contracts);
  assert.equal(contracts.total_verified_contracts.value, '2');
});

test("the lines' list: the stats service's sections in its layout's order, with its units", async () => {
  const { sections } = (await api.get('/api/v1/lines')).body as {
    sections: { id: string; charts: { id: string; units?: string }[] }[];
  };
  // The stats service's layout.json order of the lines Sextant serves; its own two lines last in their sections.
  assert.deepEqual(
    sections.map((s) => [s.id, ...s.charts.map((c) => c.id)]),
    [
      ['accounts', 'accountsGrowth', 'activeAccounts', 'newAccounts'],
      ['transactions', 'averageTxnFee', 'newTxns', 'txnsFee', 'txnsGrowth', 'txnsSuccessRate'],
      ['blocks', 'averageBlockSize', 'newBlocks', 'averageBlockTime'],
      ['tokens', 'newNativeCoinTransfers', 'newTokenTransfers'],
      ['gas', 'averageGasLimit', 'averageGasPrice', 'gasUsedGrowth', 'networkUtilization', 'averageGasUsed'],
      ['contracts', 'contractsGrowth', 'newContracts', 'newVerifiedContracts', 'verifiedContractsGrowth'],
    ],
  );
  const units = Object.fromEntries(sections.flatMap((s) => s.charts.flatMap((c) => (c.units === undefined ? [] : [[c.id, c.units]]))));
  assert.deepEqual(units, {
    averageTxnFee: 'ETH',
    txnsFee: 'ETH',
    averageBlockSize: 'Bytes',
    averageBlockTime: 's',
    averageGasPrice: 'Gwei',
  });
  const fee = (await api.get('/api/v1/lines/averageTxnFee?resolution=YEAR')).body.chart as { value: string }[];
  assert.match(fee[0]!.value, /^0\.0+[1-9][0-9]*$/, 'a fee in ETH, as a plain decimal');
});

test('bad parameters are a 422 naming each; an unknown line a 404; /api/v1 itself stays the Etherscan-style API', async () => {
  const pointers = async (query: string) => {
    const { status, body } = await api.get(`/api/v1/lines/newTxns?${query}`);
    assert.equal(status, 422, query);
    return (body.errors as { source: { pointer: string } }[]).map((e) => e.source.pointer).sort();
  };
  assert.deepEqual(await pointers('from=yesterday'), ['/from']);
  assert.deepEqual(await pointers('from=2024-02-30'), ['/from']);
  assert.deepEqual(await pointers('to=2024-1-1&from=20240101'), ['/from', '/to']);
  assert.deepEqual(await pointers('resolution=HOUR'), ['/resolution']);
  assert.deepEqual(await pointers('resolution=day&to=2023-13-01'), ['/resolution', '/to']);
  assert.equal((await api.get('/api/v1/lines/noSuchLine')).status, 404);

  const etherscan = await api.get(`/api/v1?module=block&action=eth_block_number`);
  assert.equal(etherscan.status, 200);
  assert.equal(typeof etherscan.body.result, 'string');
});
