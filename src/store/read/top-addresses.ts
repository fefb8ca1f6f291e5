import type { Address } from '../../model.js';
import { byteaFromHex } from '../encode.js';
import { type AddressItem, type Db, SqlParams, addressItem } from './sql.js';

/** An address of the top accounts: its latest coin balance read and the transactions it sent, received or created. */
export interface TopAddressItem extends AddressItem {
  coinBalance: bigint;
  transactionsCount: bigint;
}

/** Where a page of top accounts continues: after this balance and address. */
export interface TopAddressKeyset {
  coinBalance: bigint;
  address: Address;
}

interface TopAddressRow {
  address: Buffer;
  is_contract: boolean | null;
  value: string;
  transactions_count: string | null;
}

const order = 'value DESC, address ASC';

/**
 * GET /api/v2/addresses: the addresses with a positive coin balance, largest first, ties by address, as
 * Blockscout lists them; after the keyset when given. The rest of the keyset's balance and the lower
 * balances are each one range of address_current_coin_balances_rank (migration 030), read in index order.
 */
export async function listTopAddresses(db: Db, after: TopAddressKeyset | null, limit: number): Promise<TopAddressItem[]> {
  const params = new SqlParams();
  const limitParam = params.add(limit);
  let ranges = ['c.value > 0'];
  if (after !== null) {
    const balance = `${params.add(after.coinBalance.toString())}::numeric`;
    ranges = [
      `c.value = ${balance} AND c.value > 0 AND c.address > ${params.add(byteaFromHex(after.address))}::bytea`,
      `c.value < ${balance} AND c.value > 0`,
    ];
  }
  const pieces = ranges.map(
    (range) => `(SELECT c.address, c.value FROM address_current_coin_balances c WHERE ${range} ORDER BY ${order} LIMIT ${limitParam})`,
  );
  const { rows } = await db.query<TopAddressRow>(
    `SELECT c.address, a.is_contract, c.value, n.transactions_count
     FROM (SELECT * FROM (${pieces.join(' UNION ALL ')}) c ORDER BY ${order} LIMIT ${limitParam}) c
     LEFT JOIN addresses a ON a.hash = c.address
     LEFT JOIN address_counters n ON n.address = c.address
     ORDER BY c.${order.replace(', ', ', c.')}`,
    params.values,
  );
  return rows.map((r) =>
    Object.assign(addressItem(r.address, r.is_contract), {
      coinBalance: BigInt(r.value),
      transactionsCount: BigInt(r.transactions_count ?? 0),
    }),
  );
}
