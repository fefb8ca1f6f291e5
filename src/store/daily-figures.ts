import type { PoolClient } from 'pg';

/**
 * The charts' figures of a UTC day of the consensus chain (daily_figures), each by one rule, which the
 * writers below, the bulk load's rebuild and the tests' check all follow:
 *  - blocks, transactions, gas used: of the day's consensus blocks;
 *  - block intervals and seconds: each consensus block of the day whose parent is indexed, and the
 *    seconds from its parent's timestamp to its own;
 *  - active accounts: the distinct senders of the day's transactions (as Blockscout's stats service);
 *  - new contracts: contracts created by a transaction that did not fail, and by an internal frame
 *    (below the top-level one, which is the transaction's own) that did not fail, once traced;
 *  - token transfers: the transfer logs (an ERC-1155 batch is one);
 *  - successful transactions: those whose status is not 0 (failed);
 *  - native transfers: the transactions without input (as Blockscout's stats service);
 *  - transaction fees: the Σ of the consensus blocks' fees (gas used × effective gas price), in wei;
 *  - priced transactions and gas prices: the transactions with an effective gas price, and its Σ;
 *  - gas limit: the Σ of the blocks' gas limits; sized blocks and block size: the blocks whose size
 *    the node gave, and the Σ of their sizes;
 *  - new accounts: the senders whose first transaction is of the day (account_first_days).
 * Figures are computed by a SELECT over the indexed rows of a batch of blocks, and applied later in the
 * same transaction, so that the rows of daily_figures are locked only at the end of a write.
 */
export interface DayFigures {
  /** YYYY-MM-DD, UTC. */
  day: string;
  blocks: bigint;
  transactions: bigint;
  gasUsed: bigint;
  blockIntervals: bigint;
  blockSeconds: bigint;
  newContracts: bigint;
  tokenTransfers: bigint;
  successfulTransactions: bigint;
  nativeTransfers: bigint;
  transactionFees: bigint;
  pricedTransactions: bigint;
  gasPrices: bigint;
  gasLimit: bigint;
  sizedBlocks: bigint;
  blockSize: bigint;
}

type Figure = Exclude<keyof DayFigures, 'day'>;

/** The summed figures' columns in daily_figures, and the wei, gas and byte sums that are numeric. */
const figureColumns: Record<Figure, string> = {
  blocks: 'blocks',
  transactions: 'transactions',
  gasUsed: 'gas_used',
  blockIntervals: 'block_intervals',
  blockSeconds: 'block_seconds',
  newContracts: 'new_contracts',
  tokenTransfers: 'token_transfers',
  successfulTransactions: 'successful_transactions',
  nativeTransfers: 'native_transfers',
  transactionFees: 'transaction_fees',
  pricedTransactions: 'priced_transactions',
  gasPrices: 'gas_prices',
  gasLimit: 'gas_limit',
  sizedBlocks: 'sized_blocks',
  blockSize: 'block_size',
};
const numericFigures: ReadonlySet<Figure> = new Set(['gasUsed', 'transactionFees', 'gasPrices', 'gasLimit', 'blockSize']);
const figures = Object.keys(figureColumns) as Figure[];

/** How many transactions an address sent on a day. */
interface DaySender {
  day: string;
  address: Buffer;
  transactions: bigint;
}

/** What a batch of blocks (or of traces) adds to the daily figures. */
export interface DailyDelta {
  days: DayFigures[];
  senders: DaySender[];
}

const utcDay = (column: string) => `(${column} AT TIME ZONE 'UTC')::date`;

/** One source's figures per day: the figures it does not give are 0. */
const figuresOf = (day: string, values: Partial<Record<Figure, string>>, from: string): string =>
  `SELECT ${utcDay(day)} AS day, ${figures.map((f) => `${values[f] ?? '0'} AS ${figureColumns[f]}`).join(', ')} ${from} GROUP BY 1`;

/**
 * Every figure but the senders' per day, by the rules above, from the rows the fragments select: the
 * consensus blocks (with the columns of blocks), their intervals (timestamp, seconds), their transactions,
 * and the internal transactions `i` and token transfers `t` of the blocks `b`.
 */
function figuresByDay(from: { blocks: string; intervals: string; transactions: string; internal: string; transfers: string }): string {
  const sources = [
    figuresOf(
      'timestamp',
      {
        blocks: 'count(*)',
        transactions: 'sum(transactions_count)',
        gasUsed: 'sum(gas_used)',
        transactionFees: 'sum(transaction_fees)',
        gasLimit: 'sum(gas_limit)',
        sizedBlocks: 'count(size)',
        blockSize: 'coalesce(sum(size), 0)',
      },
      from.blocks,
    ),
    figuresOf('timestamp', { blockIntervals: 'count(*)', blockSeconds: 'sum(seconds)' }, from.intervals),
    figuresOf(
      'block_timestamp',
      {
        newContracts: 'count(*) FILTER (WHERE created_contract IS NOT NULL AND status IS DISTINCT FROM 0)',
        successfulTransactions: 'count(*) FILTER (WHERE status IS DISTINCT FROM 0)',
        nativeTransfers: 'count(*) FILTER (WHERE length(input) = 0)',
        pricedTransactions: 'count(gas_price)',
        gasPrices: 'coalesce(sum(gas_price), 0)',
      },
      from.transactions,
    ),
    figuresOf('b.timestamp', { newContracts: 'count(*)' }, `${from.internal} AND ${createdByFrame}`),
    figuresOf('b.timestamp', { tokenTransfers: 'count(DISTINCT (t.block_hash, t.log_index))' }, from.transfers),
  ];
  return `SELECT day, ${figures.map((f) => `sum(${figureColumns[f]}) AS ${figureColumns[f]}`).join(', ')}
          FROM (${sources.join(' UNION ALL ')}) s GROUP BY day`;
}

/** An internal frame that created a contract by the rule above. */
const createdByFrame = 'i.index > 0 AND i.created_contract IS NOT NULL AND i.error IS NULL';

type FiguresRow = Record<string, string>;

const dayFigures = (r: FiguresRow): DayFigures => ({
  day: r.day!,
  ...(Object.fromEntries(figures.map((f) => [f, BigInt(r[figureColumns[f]]!)])) as Record<Figure, bigint>),
});

const noFigures = Object.fromEntries(figures.map((f) => [f, 0n])) as Record<Figure, bigint>;

/**
 * The figures the consensus blocks `hashes` (numbered `numbers`) bring, from their indexed rows: run
 * after a write has stored them, or before a retraction removes them. An interval belongs to the pair
 * of a block and its parent: the pairs with either end in the batch count (a parent written after its
 * child brings the child's interval), each once.
 */
export async function dailyDeltaOfBlocks(client: PoolClient, hashes: readonly Buffer[], numbers: readonly bigint[]): Promise<DailyDelta> {
  if (hashes.length === 0) return { days: [], senders: [] };
  const params = [hashes, numbers.map(String)];
  const byDay = await client.query<FiguresRow>(
    `WITH batch AS (SELECT * FROM blocks WHERE hash = ANY($1::bytea[]) AND consensus),
     intervals AS (
       SELECT c.timestamp, extract(epoch FROM c.timestamp - p.timestamp)::bigint AS seconds
       FROM batch c JOIN blocks p ON p.hash = c.parent_hash AND p.consensus
       UNION ALL
       SELECT c.timestamp, extract(epoch FROM c.timestamp - p.timestamp)::bigint
       FROM batch p JOIN blocks c ON c.consensus AND c.number = p.number + 1 AND c.parent_hash = p.hash
       WHERE NOT c.hash = ANY($1::bytea[])
     )
     SELECT day::text AS day, ${figures.map((f) => figureColumns[f]).join(', ')} FROM (${figuresByDay({
       blocks: 'FROM batch',
       intervals: 'FROM intervals',
       transactions: 'FROM transactions WHERE block_number = ANY($2::bigint[]) AND block_hash = ANY($1::bytea[])',
       internal: 'FROM internal_transactions i JOIN batch b ON b.hash = i.block_hash WHERE i.block_hash = ANY($1::bytea[])',
       transfers: 'FROM token_transfers t JOIN batch b ON b.hash = t.block_hash WHERE t.block_hash = ANY($1::bytea[])',
     })}) f
     ORDER BY day`,
    params,
  );
  const senders = await client.query<{ day: string; address: Buffer; transactions: string }>(
    `SELECT ${utcDay('block_timestamp')}::text AS day, from_address AS address, count(*) AS transactions
     FROM transactions WHERE block_number = ANY($2::bigint[]) AND block_hash = ANY($1::bytea[])
     GROUP BY 1, 2 ORDER BY 1, 2`,
    params,
  );
  return {
    days: byDay.rows.map(dayFigures),
    senders: senders.rows.map((r) => ({ day: r.day, address: r.address, transactions: BigInt(r.transactions) })),
  };
}

/** The contracts the traced blocks' internal frames created, by the rule above: what a trace write adds. */
export async function dailyDeltaOfTraces(client: PoolClient, hashes: readonly Buffer[]): Promise<DailyDelta> {
  if (hashes.length === 0) return { days: [], senders: [] };
  const { rows } = await client.query<{ day: string; new_contracts: string }>(
    `SELECT ${utcDay('b.timestamp')}::text AS day, count(*) AS new_contracts
     FROM internal_transactions i JOIN blocks b ON b.hash = i.block_hash
     WHERE i.block_hash = ANY($1::bytea[]) AND ${createdByFrame}
     GROUP BY 1 ORDER BY 1`,
    [hashes],
  );
  return { days: rows.map((r) => Object.assign({}, noFigures, { day: r.day, newContracts: BigInt(r.new_contracts) })), senders: [] };
}

/**
 * Counts the senders in daily_senders, signed; returns, per day, how many senders the day gained (a
 * first transaction of the day) or lost (its last one retracted).
 */
async function applySenders(client: PoolClient, senders: readonly DaySender[], sign: 1n | -1n): Promise<Map<string, bigint>> {
  const changed = new Map<string, bigint>();
  if (senders.length === 0) return changed;
  const params = [senders.map((s) => s.day), senders.map((s) => s.address), senders.map((s) => s.transactions.toString())];
  const batch = `SELECT * FROM unnest($1::date[], $2::bytea[], $3::bigint[]) AS s (day, address, transactions)`;
  if (sign === 1n) {
    // After the upsert, a sender's count equals this batch's exactly when the row is new.
    const { rows } = await client.query<{ day: string; gained: string }>(
      `WITH s AS (${batch}),
       upserted AS (
         INSERT INTO daily_senders AS d (day, address, transactions) SELECT day, address, transactions FROM s ORDER BY day, address
         ON CONFLICT (day, address) DO UPDATE SET transactions = d.transactions + excluded.transactions
         RETURNING d.day, d.address, d.transactions
       )
       SELECT u.day::text, count(*) AS gained FROM upserted u JOIN s USING (day, address)
       WHERE u.transactions = s.transactions GROUP BY 1`,
      params,
    );
    for (const r of rows) changed.set(r.day, BigInt(r.gained));
    return changed;
  }
  const { rows } = await client.query<{ day: string; lost: string }>(
    `WITH s AS (${batch}),
     gone AS (DELETE FROM daily_senders d USING s WHERE d.day = s.day AND d.address = s.address AND d.transactions <= s.transactions RETURNING d.day)
     SELECT day::text, count(*) AS lost FROM gone GROUP BY 1`,
    params,
  );
  await client.query(
    `UPDATE daily_senders d SET transactions = d.transactions - s.transactions FROM (${batch}) s
     WHERE d.day = s.day AND d.address = s.address`,
    params,
  );
  for (const r of rows) changed.set(r.day, -BigInt(r.lost));
  return changed;
}

/**
 * Keeps account_first_days (each sender's first day in daily_senders) after applySenders; returns, per
 * day, how many accounts became (or stopped being) new on it. A write moves a first day only earlier, in
 * one upsert that serializes the writers of a sender and says where the day was; a retraction, which
 * only removes days, looks the first day up again for the senders it touched.
 */
async function applyFirstDays(client: PoolClient, senders: readonly DaySender[], sign: 1n | -1n): Promise<Map<string, bigint>> {
  const changed = new Map<string, bigint>();
  const count = (day: string, by: bigint) => changed.set(day, (changed.get(day) ?? 0n) + by);
  if (senders.length === 0) return changed;
  if (sign === 1n) {
    const { rows } = await client.query<{ day: string; replaced: string | null }>(
      `INSERT INTO account_first_days AS f (address, day)
       SELECT address, min(day) FROM unnest($1::date[], $2::bytea[]) AS s (day, address) GROUP BY address ORDER BY address
       ON CONFLICT (address) DO UPDATE SET day = excluded.day, replaced_day = f.day WHERE excluded.day < f.day
       RETURNING f.day::text AS day, f.replaced_day::text AS replaced`,
      [senders.map((s) => s.day), senders.map((s) => s.address)],
    );
    for (const r of rows) {
      count(r.day, 1n);
      if (r.replaced !== null) count(r.replaced, -1n);
    }
    return changed;
  }
  const addresses = senders.map((s) => s.address);
  const known = await client.query<{ address: Buffer; day: string }>(
    'SELECT address, day::text AS day FROM account_first_days WHERE address = ANY($1::bytea[]) ORDER BY address FOR UPDATE',
    [addresses],
  );
  const { rows: firsts } = await client.query<{ address: Buffer; day: string }>(
    'SELECT address, min(day)::text AS day FROM daily_senders WHERE address = ANY($1::bytea[]) GROUP BY address',
    [addresses],
  );
  const firstDay = new Map(firsts.map((r) => [r.address.toString('hex'), r.day]));
  const moved = known.rows.filter((r) => firstDay.get(r.address.toString('hex')) !== r.day);
  for (const r of moved) {
    count(r.day, -1n);
    const day = firstDay.get(r.address.toString('hex'));
    if (day !== undefined) count(day, 1n);
  }
  const gone = moved.filter((r) => !firstDay.has(r.address.toString('hex')));
  const later = moved.filter((r) => firstDay.has(r.address.toString('hex')));
  await client.query('DELETE FROM account_first_days WHERE address = ANY($1::bytea[])', [gone.map((r) => r.address)]);
  await client.query(
    `UPDATE account_first_days f SET day = m.day, replaced_day = NULL
     FROM unnest($1::bytea[], $2::date[]) AS m (address, day) WHERE f.address = m.address`,
    [later.map((r) => r.address), later.map((r) => firstDay.get(r.address.toString('hex'))!)],
  );
  return changed;
}

/**
 * Adds the delta (1n: written) to daily_figures or takes it away (-1n: retracted), inside the writer's
 * transaction; a day left without a block loses its row. The rows are taken in day order.
 */
export async function applyDailyDelta(client: PoolClient, delta: DailyDelta, sign: 1n | -1n): Promise<void> {
  const accounts = await applySenders(client, delta.senders, sign);
  const firstDays = await applyFirstDays(client, delta.senders, sign);
  const days = [...new Set([...delta.days.map((d) => d.day), ...accounts.keys(), ...firstDays.keys()])].sort();
  if (days.length === 0) return;
  const byDay = new Map(delta.days.map((d) => [d.day, d]));
  const column = (figure: Figure) => days.map((day) => String(sign * (byDay.get(day)?.[figure] ?? 0n)));
  const columns = figures.map((f) => figureColumns[f]);
  await client.query(
    `INSERT INTO daily_figures AS f (day, ${columns.join(', ')}, active_accounts, new_accounts)
     SELECT * FROM unnest($1::date[], ${figures.map((f, i) => `$${i + 2}::${numericFigures.has(f) ? 'numeric' : 'bigint'}[]`).join(', ')},
                          $${columns.length + 2}::bigint[], $${columns.length + 3}::bigint[])
     ORDER BY 1
     ON CONFLICT (day) DO UPDATE SET
       ${[...columns, 'active_accounts', 'new_accounts'].map((c) => `${c} = f.${c} + excluded.${c}`).join(',\n       ')}`,
    [days, ...figures.map(column), days.map((day) => String(accounts.get(day) ?? 0n)), days.map((day) => String(firstDays.get(day) ?? 0n))],
  );
  if (sign === -1n) await client.query('DELETE FROM daily_figures WHERE day = ANY($1::date[]) AND blocks = 0', [days]);
}

/** daily_senders, account_first_days and daily_figures from the indexed rows, by the rule above: the bulk load's switch. */
export async function rebuildDailyFigures(client: PoolClient): Promise<void> {
  await client.query('DELETE FROM daily_senders');
  await client.query(
    `INSERT INTO daily_senders (day, address, transactions)
     SELECT ${utcDay('block_timestamp')}, from_address, count(*) FROM transactions GROUP BY 1, 2`,
  );
  await client.query('DELETE FROM account_first_days');
  await client.query('INSERT INTO account_first_days (address, day) SELECT address, min(day) FROM daily_senders GROUP BY address');
  await client.query('DELETE FROM daily_figures');
  const columns = figures.map((f) => figureColumns[f]);
  await client.query(
    `INSERT INTO daily_figures (day, ${columns.join(', ')}, active_accounts, new_accounts)
     SELECT f.day, ${columns.map((c) => `f.${c}`).join(', ')},
            (SELECT count(*) FROM daily_senders s WHERE s.day = f.day), (SELECT count(*) FROM account_first_days a WHERE a.day = f.day)
     FROM (${figuresByDay({
       blocks: 'FROM blocks WHERE consensus',
       intervals: `FROM (SELECT c.timestamp, extract(epoch FROM c.timestamp - p.timestamp)::bigint AS seconds
                         FROM blocks c JOIN blocks p ON p.hash = c.parent_hash AND p.consensus WHERE c.consensus) intervals`,
       transactions: 'FROM transactions',
       internal: 'FROM internal_transactions i JOIN blocks b ON b.hash = i.block_hash WHERE b.consensus',
       transfers: 'FROM token_transfers t JOIN blocks b ON b.hash = t.block_hash',
     })}) f
     WHERE f.blocks > 0`,
  );
}

/**
 * Counts a contract verified on `day` (YYYY-MM-DD, UTC, of its verified_at) in daily_verified_contracts,
 * and no longer on `replaced`, the day of the verification it replaces (null: its first).
 */
export async function moveVerifiedContract(client: PoolClient, replaced: string | null, day: string): Promise<void> {
  if (replaced === day) return;
  await client.query(
    `INSERT INTO daily_verified_contracts AS d (day, contracts) VALUES ($1, 1)
     ON CONFLICT (day) DO UPDATE SET contracts = d.contracts + 1`,
    [day],
  );
  if (replaced === null) return;
  await client.query('UPDATE daily_verified_contracts SET contracts = contracts - 1 WHERE day = $1', [replaced]);
  await client.query('DELETE FROM daily_verified_contracts WHERE day = $1 AND contracts = 0', [replaced]);
}
