import type { Pool, PoolClient } from 'pg';
import { ZERO_ADDRESS } from '../model.js';
import { rebuildDailyFigures } from './daily-figures.js';
import { byteaFromHex } from './encode.js';
import { buildListCheckpoints } from './list-checkpoints.js';
import { inTransaction } from './transaction.js';

/**
 * The ledger that the block writer, the trace stage and the checkpoint stage keep batch by batch
 * (tokens, balances, holder counts, NFT owners, supply marks, address counters, chain totals, the
 * account lists' checkpoints, contracts, coin balance marks, daily figures), built at once from the
 * base tables after a bulk load that wrote only those. Each step runs in one transaction that first
 * clears what it builds, then builds it: a step cut short by a crash leaves nothing behind, and a step
 * run again gives the same rows, so a run can resume at any step.
 */
export interface LedgerStep {
  name: string;
  /** The steps this one reads the work of, or whose rows it updates too (both would wait on each other's row locks). */
  after?: readonly string[];
  run(client: PoolClient): Promise<void>;
}

const zero = byteaFromHex(ZERO_ADDRESS);

/** The id a transfer's balance row is kept under: ERC-20 and ERC-721 balances are one per token. */
export const balanceTokenId = `CASE WHEN token_type IN ('ERC-1155', 'ERC-404') THEN token_id END`;

/**
 * Each token typed by all its transfers as the per-batch ledger types it (joinTokenTypes): ERC-1155 if
 * any transfer is, else ERC-404 if they are of more than one kind. The columns the metadata stage sets
 * are kept.
 */
async function buildTokens(client: PoolClient): Promise<void> {
  await client.query(
    `INSERT INTO tokens (address, type, transfers_count)
     SELECT token_address,
       CASE WHEN bool_or(token_type = 'ERC-1155') THEN 'ERC-1155' WHEN min(token_type) <> max(token_type) THEN 'ERC-404'
         ELSE min(token_type) END,
       count(*)
     FROM token_transfers GROUP BY token_address
     ON CONFLICT (address) DO UPDATE SET type = EXCLUDED.type, transfers_count = EXCLUDED.transfers_count`,
  );
}

/**
 * Every (holder, token, id) a transfer moved has a row, also when its transfers net to zero, as the
 * block writer leaves it; a token's holders are the addresses with a positive row of it.
 */
async function buildBalances(client: PoolClient): Promise<void> {
  await client.query('DELETE FROM address_token_balances');
  await client.query(
    `INSERT INTO address_token_balances (address, token_address, token_id, value, token_type, token_name)
     SELECT m.holder, m.token_address, m.token_id, sum(m.delta), k.type, k.name
     FROM (
       SELECT from_address AS holder, token_address, ${balanceTokenId} AS token_id, -amount AS delta FROM token_transfers
       UNION ALL
       SELECT to_address, token_address, ${balanceTokenId}, amount FROM token_transfers
     ) m JOIN tokens k ON k.address = m.token_address
     WHERE m.holder <> $1
     GROUP BY m.holder, m.token_address, m.token_id, k.type, k.name`,
    [zero],
  );
  await client.query('UPDATE tokens SET holders_count = 0 WHERE holders_count <> 0');
  await client.query(
    `UPDATE tokens k SET holders_count = h.holders
     FROM (SELECT token_address, count(DISTINCT address) AS holders FROM address_token_balances WHERE value > 0 GROUP BY token_address) h
     WHERE k.address = h.token_address`,
  );
}

/**
 * An NFT id counts the transfer logs that name it; an ERC-721 (or ERC-404) id's owner is the recipient
 * of its latest transfer, the first entry of a log as the block writer keeps it. The columns the
 * metadata stage sets are kept.
 */
async function buildInstances(client: PoolClient): Promise<void> {
  await client.query(
    `INSERT INTO token_instances (token_address, token_id, owner, owner_block_number, owner_log_index, transfers_count)
     SELECT l.token_address, l.token_id, l.owner, l.block_number, l.log_index, c.transfers
     FROM (
       SELECT DISTINCT ON (token_address, token_id) token_address, token_id,
         CASE WHEN token_type <> 'ERC-1155' THEN to_address END AS owner,
         CASE WHEN token_type <> 'ERC-1155' THEN block_number END AS block_number,
         CASE WHEN token_type <> 'ERC-1155' THEN log_index END AS log_index
       FROM token_transfers WHERE token_id IS NOT NULL
       ORDER BY token_address, token_id, block_number DESC, log_index DESC, batch_index
     ) l JOIN (
       SELECT token_address, token_id, count(DISTINCT (block_hash, log_index)) AS transfers
       FROM token_transfers WHERE token_id IS NOT NULL GROUP BY token_address, token_id
     ) c ON c.token_address = l.token_address AND c.token_id = l.token_id
     ON CONFLICT (token_address, token_id) DO UPDATE SET owner = EXCLUDED.owner,
       owner_block_number = EXCLUDED.owner_block_number, owner_log_index = EXCLUDED.owner_log_index,
       transfers_count = EXCLUDED.transfers_count`,
  );
}

/** Tokens with a mint or a burn are sent to the metadata stage for their total supply; ERC-1155 has none. */
async function markSupplies(client: PoolClient): Promise<void> {
  await client.query('UPDATE tokens SET supply_mark = NULL WHERE supply_mark IS NOT NULL');
  await client.query(
    `UPDATE tokens SET supply_mark = nextval('token_supply_marks')
     WHERE address IN (SELECT token_address FROM token_transfers
                       WHERE token_type <> 'ERC-1155' AND (from_address = $1 OR to_address = $1))`,
    [zero],
  );
}

/** As address-counters.ts counts: a transaction once per distinct party, a transfer row once per distinct end. */
async function buildAddressCounters(client: PoolClient): Promise<void> {
  await client.query('DELETE FROM address_counters');
  await client.query(
    `INSERT INTO address_counters (address, transactions_count, token_transfers_count, gas_usage, validations_count, incoming_gas_usage)
     SELECT address, sum(transactions_count), sum(token_transfers_count), sum(gas_usage), sum(validations_count), sum(incoming_gas_usage)
     FROM (
       SELECT p.address, count(*) AS transactions_count, 0 AS token_transfers_count, 0 AS gas_usage, 0 AS validations_count,
              0 AS incoming_gas_usage
       FROM transactions t
       CROSS JOIN LATERAL (SELECT DISTINCT a FROM unnest(ARRAY[t.from_address, t.to_address, t.created_contract]) u(a) WHERE a IS NOT NULL) p(address)
       GROUP BY p.address
       UNION ALL
       SELECT from_address, 0, 0, sum(gas_used), 0, 0 FROM transactions GROUP BY from_address
       UNION ALL
       SELECT to_address, 0, 0, 0, 0, sum(gas_used) FROM transactions WHERE to_address IS NOT NULL GROUP BY to_address
       UNION ALL
       SELECT p.address, 0, count(*), 0, 0, 0
       FROM token_transfers tt
       CROSS JOIN LATERAL (SELECT DISTINCT a FROM unnest(ARRAY[tt.from_address, tt.to_address]) u(a)) p(address)
       GROUP BY p.address
       UNION ALL
       SELECT miner, 0, 0, 0, count(*), 0 FROM blocks WHERE consensus GROUP BY miner
     ) s
     GROUP BY address`,
  );
}

/** Needs the address counters; the block writer writes the row with its first block. */
async function buildChainTotals(client: PoolClient): Promise<void> {
  await client.query('DELETE FROM chain_totals');
  await client.query(
    `INSERT INTO chain_totals (blocks, transactions, gas_used, addresses)
     SELECT count(*), sum(transactions_count), sum(gas_used),
       (SELECT count(*) FROM address_counters WHERE transactions_count <> 0 OR token_transfers_count <> 0 OR validations_count <> 0)
     FROM blocks WHERE consensus HAVING count(*) > 0`,
  );
}

/**
 * The contracts the block writer marks (created by a transaction that did not fail, or the address of
 * a log) and the trace stage (created by a frame that did not fail), each marked for a read of its code.
 */
async function markContracts(client: PoolClient): Promise<void> {
  await client.query('DELETE FROM addresses');
  await client.query(
    `INSERT INTO addresses (hash, is_contract)
     SELECT a, true FROM (
       SELECT created_contract FROM transactions WHERE created_contract IS NOT NULL AND status IS DISTINCT FROM 0
       UNION SELECT address FROM logs
       UNION SELECT created_contract FROM internal_transactions WHERE created_contract IS NOT NULL AND error IS NULL
     ) s(a)`,
  );
  await client.query('DELETE FROM contract_code_marks');
  await client.query('INSERT INTO contract_code_marks (address) SELECT hash FROM addresses');
}

/**
 * The addresses whose native balance the block writer marks for a read (coinBalanceParties) and the
 * trace stage does (internalTransactionParties).
 */
async function markCoinBalances(client: PoolClient): Promise<void> {
  await client.query('DELETE FROM coin_balance_marks');
  await client.query(
    `INSERT INTO coin_balance_marks (address, mark)
     SELECT a, nextval('coin_balance_mark_numbers') FROM (
       SELECT from_address FROM transactions UNION SELECT to_address FROM transactions
       UNION SELECT created_contract FROM transactions
       UNION SELECT miner FROM blocks WHERE consensus UNION SELECT address FROM withdrawals
       UNION SELECT unnest(ARRAY[from_address, to_address, created_contract]) FROM internal_transactions
         WHERE value > 0 OR type = 'selfdestruct'
     ) s(a)
     WHERE a IS NOT NULL`,
  );
}

/**
 * In an order they may run one by one, the longest chain first: balances take their tokens' type and
 * name, supply marks update the tokens' rows after the holder counts, totals count the address counters.
 * The rest are independent and may run beside them.
 */
export const ledgerSteps: readonly LedgerStep[] = [
  { name: 'tokens', run: buildTokens },
  { name: 'balances and holders', after: ['tokens'], run: buildBalances },
  { name: 'instances', run: buildInstances },
  { name: 'supply marks', after: ['balances and holders'], run: markSupplies },
  { name: 'address counters', run: buildAddressCounters },
  { name: 'chain totals', after: ['address counters'], run: buildChainTotals },
  { name: 'list checkpoints', after: ['address counters'], run: (client) => buildListCheckpoints(client) },
  { name: 'contracts', run: markContracts },
  { name: 'coin balance marks', run: markCoinBalances },
  { name: 'daily figures', run: rebuildDailyFigures },
];

export interface LedgerStepDone {
  index: number;
  name: string;
  milliseconds: number;
}

/** Runs every step in order, each in its own transaction; `onStep` hears of each once it is committed. */
export async function buildLedger(pool: Pool, onStep?: (done: LedgerStepDone) => void | Promise<void>): Promise<void> {
  for (const [index, step] of ledgerSteps.entries()) {
    const started = performance.now();
    await inTransaction(pool, (client) => step.run(client));
    await onStep?.({ index, name: step.name, milliseconds: performance.now() - started });
  }
}
