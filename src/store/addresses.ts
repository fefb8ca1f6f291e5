import { inLockOrder } from './lock-order.js';
import type { PoolClient } from 'pg';
import type { Address } from '../model.js';
import { byteaFromHex } from './encode.js';

/**
 * Marks addresses as contracts in `addresses` (a new row where there is none), inside the writer's
 * transaction, and those newly marked for a read of their code.
 */
export async function markContracts(client: PoolClient, addresses: readonly Address[]): Promise<void> {
  // Sorted as their bytes are (lowercase hex), so that concurrent writers lock rows in the same order.
  const contracts = [...new Set(addresses.map((a) => a.toLowerCase() as Address))].sort(inLockOrder);
  if (contracts.length === 0) return;
  // A contract newly known is marked for the contract code stage to read its code.
  await client.query(
    `WITH marked AS (
       INSERT INTO addresses (hash, is_contract) SELECT unnest($1::bytea[]), true
       ON CONFLICT (hash) DO UPDATE SET is_contract = true WHERE NOT addresses.is_contract
       RETURNING hash)
     INSERT INTO contract_code_marks (address) SELECT hash FROM marked ORDER BY hash ON CONFLICT DO NOTHING`,
    [contracts.map(byteaFromHex)],
  );
}
