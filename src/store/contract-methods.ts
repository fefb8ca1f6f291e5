import type { Hex } from '../model.js';
import { byteaFromHex } from './encode.js';
import type { Db } from './read/sql.js';

/** A function, event or error of a verified ABI under its 4-byte selector (an event's topic cut to 4 bytes). */
export interface ContractMethod {
  selector: Hex;
  type: 'function' | 'event' | 'error';
  /** The ABI item. */
  item: unknown;
}

/** Adds the items of a verified ABI to contract_methods; an item already there (the same JSON) is kept once. */
export async function saveContractMethods(db: Db, methods: readonly ContractMethod[]): Promise<void> {
  if (methods.length === 0) return;
  await db.query(
    `INSERT INTO contract_methods (selector, type, abi)
     SELECT m.selector, m.type, m.abi::jsonb FROM unnest($1::bytea[], $2::text[], $3::text[]) AS m (selector, type, abi)
     ON CONFLICT DO NOTHING`,
    [methods.map((m) => byteaFromHex(m.selector)), methods.map((m) => m.type), methods.map((m) => JSON.stringify(m.item))],
  );
}
