import type { Address, Hex } from '../../model.js';
import { byteaFromHex, hexFromBytea } from '../encode.js';
import { planStableStatement } from './plan-stable.js';
import type { Db } from './sql.js';

/**
 * An ABI as stored, unparsed: a verified ABI's JSON text (or one item of contract_methods as a one-item
 * ABI), or a signature of the signature database as a human-readable ABI item
 * (`function transfer(address,uint256)`). `key` names the content (the MD5 of the JSON text, or the
 * signature): a reader may keep what it parsed under it, and no change of a row can make that stale.
 */
export type StoredAbi = { key: string; json: string } | { key: string; signature: string };

/** The verified ABI of the contract at `address` (an SQL expression): its own, else its bytecode twin's (the first verified contract with its runtime code). */
const verifiedAbiOf = (address: string): string => `(
  SELECT v.abi FROM (
    SELECT own.abi, 0 AS rank, own.verified_at, own.address FROM verified_contracts own
    WHERE own.address = ${address} AND jsonb_typeof(own.abi) = 'array'
    UNION ALL
    (SELECT twin.abi, 1, twin.verified_at, twin.address FROM contract_codes c JOIN verified_contracts twin ON twin.code_hash = c.code_hash
     WHERE c.address = ${address} AND jsonb_typeof(twin.abi) = 'array'
     ORDER BY twin.verified_at, twin.address LIMIT 1)
  ) v ORDER BY v.rank LIMIT 1)`;

const contractAbisStatement = planStableStatement(
  `SELECT q.address, v.abi::text AS json, md5(v.abi::text) AS key
     FROM unnest($1::bytea[]) AS q (address)
     CROSS JOIN LATERAL (
       SELECT 0 AS rank, ${verifiedAbiOf('q.address')} AS abi
       UNION ALL
       SELECT i.rank, ${verifiedAbiOf('i.address')}
       FROM proxy_implementations p CROSS JOIN LATERAL unnest(p.implementations) WITH ORDINALITY AS i (address, rank)
       WHERE p.address = q.address
     ) v
     WHERE v.abi IS NOT NULL
     ORDER BY q.address, v.rank`,
);

/**
 * The ABIs to decode the calls and logs of each of these addresses with, in order: its own verified
 * ABI, else that of its bytecode twin; then, for a proxy, those of its implementations, in their order.
 * Addresses with none are absent. One query, whatever the number of addresses.
 */
export async function readContractAbis(db: Db, addresses: readonly Address[]): Promise<Map<Address, StoredAbi[]>> {
  const wanted = [...new Set(addresses.map((a) => a.toLowerCase() as Address))];
  const found = new Map<Address, StoredAbi[]>();
  if (wanted.length === 0) return found;
  const { rows } = await db.query<{ address: Buffer; json: string; key: string }>(contractAbisStatement, [wanted.map(byteaFromHex)]);
  for (const r of rows) {
    const address = hexFromBytea(r.address);
    found.set(address, [...(found.get(address) ?? []), { key: r.key, json: r.json }]);
  }
  return found;
}

export type ContractMethodType = 'function' | 'event' | 'error';

/** A selector of a kind of ABI item: a function's or an error's, or an event's topic cut to 4 bytes. */
export interface MethodSelector {
  type: ContractMethodType;
  selector: Hex;
}

const methodCandidatesStatement = planStableStatement(
  `SELECT q.type, q.selector, c.key, c.json
     FROM unnest($1::text[], $2::bytea[]) AS q (type, selector)
     CROSS JOIN LATERAL (
       SELECT 0 AS source, md5(jsonb_build_array(m.abi)::text) AS key, jsonb_build_array(m.abi)::text AS json
       FROM contract_methods m WHERE m.selector = q.selector AND m.type = q.type
       UNION ALL
       SELECT 1, q.type || ' ' || s.signature, NULL
       FROM signatures s WHERE s.selector = q.selector AND s.type = (CASE q.type WHEN 'error' THEN 'function' ELSE q.type END)
     ) c
     ORDER BY q.selector, q.type, c.source, c.key`,
);

/**
 * The candidates under each of these selectors, keyed by `type selector`: the items of contract_methods
 * (as one-item ABIs, by the MD5 of their JSON), then the signatures of the signature database (by their
 * text; an error's under the functions', as 4byte databases keep them). A stable order; one query.
 */
export async function readMethodCandidates(db: Db, selectors: readonly MethodSelector[]): Promise<Map<string, StoredAbi[]>> {
  const found = new Map<string, StoredAbi[]>();
  const keys = [...new Set(selectors.map((s) => methodKey(s.type, s.selector)))];
  if (keys.length === 0) return found;
  const pairs = keys.map((key) => key.split(' ') as [ContractMethodType, Hex]);
  const { rows } = await db.query<{ type: ContractMethodType; selector: Buffer; key: string; json: string | null }>(
    methodCandidatesStatement,
    [pairs.map(([type]) => type), pairs.map(([, selector]) => byteaFromHex(selector))],
  );
  for (const r of rows) {
    const key = methodKey(r.type, hexFromBytea(r.selector));
    const stored: StoredAbi = r.json === null ? { key: r.key, signature: r.key } : { key: r.key, json: r.json };
    found.set(key, [...(found.get(key) ?? []), stored]);
  }
  return found;
}

/** The key readMethodCandidates answers under: the type and the 4-byte selector (lowercase). */
export const methodKey = (type: ContractMethodType, selector: Hex): string => `${type} ${selector.toLowerCase()}`;
