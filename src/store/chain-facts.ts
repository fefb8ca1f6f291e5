import type { Pool } from 'pg';

export type ChainFactKey = 'chain_id' | 'genesis_hash';

export async function readChainFacts(pool: Pool): Promise<Map<ChainFactKey, string>> {
  const { rows } = await pool.query<{ key: ChainFactKey; value: string }>('SELECT key, value FROM chain_facts');
  return new Map(rows.map((r) => [r.key, r.value]));
}

export async function recordChainFact(pool: Pool, key: ChainFactKey, value: string): Promise<void> {
  await pool.query('INSERT INTO chain_facts (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
}

/** Empties every table of indexed data (the demo chain is new at each start). */
export async function clearIndexedData(pool: Pool): Promise<void> {
  await pool.query(
    `TRUNCATE chain_facts, blocks, transactions, pending_transactions, withdrawals, addresses, tokens,
       token_transfers, token_instances, address_token_balances, internal_transactions, block_rewards, logs,
       address_counters, coin_balance_marks, address_coin_balances, address_current_coin_balances, chain_totals,
       daily_figures, daily_senders, account_first_days, daily_verified_contracts,
       transaction_authorizations, bytecodes, contract_codes, contract_code_marks, verified_contracts,
       verification_jobs, contract_methods, proxy_marks, proxy_implementations, ens_names, ens_marks, ens_scan,
       list_checkpoints, list_tails, list_scan`,
  );
}
