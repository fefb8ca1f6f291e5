import type { PoolClient } from 'pg';
import type { Address } from '../model.js';
import { byteaFromHex } from './encode.js';
import { inLockOrder } from './lock-order.js';

/** What rows of a batch add to (or, retracted, take from) one address's counters. */
interface CounterDelta {
  transactions: bigint;
  tokenTransfers: bigint;
  gasUsage: bigint;
  /** Of the transactions sent to the address. */
  incomingGasUsage: bigint;
  validations: bigint;
}

/** The parts of the indexed rows the counters follow. */
export interface CountedRows {
  transactions: readonly { from: Address; to: Address | null; createdContract: Address | null; gasUsed: bigint }[];
  tokenTransfers: readonly { from: Address; to: Address }[];
  /** One entry per consensus block. */
  miners: readonly Address[];
}

/**
 * The change each address's counters undergo when these rows are added (sign 1) or retracted (sign -1):
 * a transaction counts once for each distinct address among its sender, recipient and created
 * contract, a token transfer row once for each of its sender and recipient, as the address lists do.
 */
export function counterDeltas(rows: CountedRows, sign: 1n | -1n): Map<Address, CounterDelta> {
  const deltas = new Map<Address, CounterDelta>();
  const of = (address: Address): CounterDelta => {
    const key = address.toLowerCase() as Address;
    let delta = deltas.get(key);
    if (delta === undefined) {
      delta = { transactions: 0n, tokenTransfers: 0n, gasUsage: 0n, incomingGasUsage: 0n, validations: 0n };
      deltas.set(key, delta);
    }
    return delta;
  };
  for (const t of rows.transactions) {
    const parties = new Set([t.from, t.to, t.createdContract].filter((a): a is Address => a !== null).map((a) => a.toLowerCase()));
    for (const party of parties) of(party as Address).transactions += sign;
    of(t.from).gasUsage += sign * t.gasUsed;
    if (t.to !== null) of(t.to).incomingGasUsage += sign * t.gasUsed;
  }
  for (const transfer of rows.tokenTransfers) {
    for (const party of new Set([transfer.from.toLowerCase(), transfer.to.toLowerCase()])) of(party as Address).tokenTransfers += sign;
  }
  for (const miner of rows.miners) of(miner).validations += sign;
  return deltas;
}

/**
 * Adds the deltas to address_counters inside the writer's (or the retraction's) transaction. Returns
 * how many more addresses count something (a transaction, a token transfer or a mined block) than
 * before, negative when a retraction leaves rows at zero: counted in the statement, from each row as
 * the upsert returns it and as it was (the row less its delta; a new row's counts were zero).
 */
export async function applyCounterDeltas(client: PoolClient, deltas: Map<Address, CounterDelta>): Promise<bigint> {
  if (deltas.size === 0) return 0n;
  // Sorted, so that concurrent writers lock rows in the same order.
  const addresses = [...deltas.keys()].sort(inLockOrder);
  const column = (pick: (d: CounterDelta) => bigint) => addresses.map((a) => pick(deltas.get(a) as CounterDelta).toString());
  const { rows } = await client.query<{ change: string }>(
    `WITH d AS (
       SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::bigint[], $4::numeric[], $5::bigint[], $6::numeric[])
         AS d(address, transactions_count, token_transfers_count, gas_usage, validations_count, incoming_gas_usage)),
     upserted AS (
       INSERT INTO address_counters AS c (address, transactions_count, token_transfers_count, gas_usage, validations_count, incoming_gas_usage)
       SELECT * FROM d
       ON CONFLICT (address) DO UPDATE SET
         transactions_count = c.transactions_count + excluded.transactions_count,
         token_transfers_count = c.token_transfers_count + excluded.token_transfers_count,
         gas_usage = c.gas_usage + excluded.gas_usage,
         incoming_gas_usage = c.incoming_gas_usage + excluded.incoming_gas_usage,
         validations_count = c.validations_count + excluded.validations_count
       RETURNING c.address, c.transactions_count, c.token_transfers_count, c.validations_count)
     SELECT coalesce(sum(
       (u.transactions_count <> 0 OR u.token_transfers_count <> 0 OR u.validations_count <> 0)::int
       - (u.transactions_count <> d.transactions_count OR u.token_transfers_count <> d.token_transfers_count
          OR u.validations_count <> d.validations_count)::int), 0) AS change
     FROM upserted u JOIN d ON d.address = u.address`,
    [
      addresses.map(byteaFromHex),
      column((d) => d.transactions),
      column((d) => d.tokenTransfers),
      column((d) => d.gasUsage),
      column((d) => d.validations),
      column((d) => d.incomingGasUsage),
    ],
  );
  return BigInt(rows[0]!.change);
}
