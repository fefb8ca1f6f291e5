import type { Pool, PoolClient } from 'pg';
import type { Address, BlockBundle, Hex, ProxyRecord } from '../model.js';
import { byteaFromHex, hexFromBytea, nullableByteaFromHex } from './encode.js';
import { inLockOrder } from './lock-order.js';
import { type AddressMark, clearAddressMarks, findAddressMarks, writeAtConsensusBlock } from './address-marks.js';

/** topic0 of the events by which a proxy says its implementation changed. */
export const proxyChangeTopics: readonly Hex[] = [
  // Upgraded(address): an EIP-1967 proxy's implementation, or an UpgradeableBeacon's.
  '0xbc7cd75a20ee27fd9adebab32041f755214dbc6bffa90cc0225b39da2e5c2d3b',
  // BeaconUpgraded(address)
  '0x1cf3b03a6cf19fa2baba4df148e9dcabedea7f8a5c07840e207e5c089be95d3e',
  // DiamondCut((address,uint8,bytes4[])[],address,bytes)
  '0x8faa70878671ccd212d20771b795c50af8fd3ff6cf27f4bde57e5d4de0aeb673',
];

/**
 * Marks contracts to be checked (again) for a proxy, inside the caller's transaction, and with them the
 * proxies whose beacon is one of them: a beacon's upgrade changes every proxy that follows it. Each
 * mark is a new number, so that a check made before it does not clear it.
 */
export async function markProxyChecks(client: PoolClient, addresses: Iterable<Address>): Promise<void> {
  // Sorted, so that concurrent writers lock rows in the same order.
  const marked = [...new Set([...addresses].map((a) => a.toLowerCase() as Address))].sort(inLockOrder);
  if (marked.length === 0) return;
  await client.query(
    `INSERT INTO proxy_marks (address, mark)
     SELECT a, nextval('proxy_mark_numbers') FROM (
       SELECT a FROM unnest($1::bytea[]) u(a)
       UNION SELECT address FROM proxy_implementations WHERE beacon = ANY($1::bytea[])
       ORDER BY 1
     ) m(a)
     ON CONFLICT (address) DO UPDATE SET mark = excluded.mark`,
    [marked.map(byteaFromHex)],
  );
}

/**
 * Marks one contract for a check (again) at the request of a user (verifyproxycontract): the mark it
 * was given, by which the request's progress is found.
 */
export async function requestProxyCheck(pool: Pool, address: Address): Promise<bigint> {
  const { rows } = await pool.query<{ mark: string }>(
    `INSERT INTO proxy_marks (address, mark) VALUES ($1, nextval('proxy_mark_numbers'))
     ON CONFLICT (address) DO UPDATE SET mark = excluded.mark RETURNING mark`,
    [byteaFromHex(address.toLowerCase() as Address)],
  );
  return BigInt(rows[0]!.mark);
}

/** The contracts written blocks ask to check: emitters of an upgrade event, and the authorities of EIP-7702 delegations. */
export function proxyChangeParties(bundles: readonly BlockBundle[]): Address[] {
  return bundles.flatMap((b) => [
    ...b.logs
      .filter((l) => l.topics[0] !== undefined && proxyChangeTopics.includes(l.topics[0].toLowerCase() as Hex))
      .map((l) => l.address),
    ...b.transactions.flatMap((t) => t.authorizations.flatMap((a) => (a.authority === null ? [] : [a.authority]))),
  ]);
}

/**
 * Inside a retraction, once the logs and authorizations of the lost blocks are gone (their upgrade
 * emitters and authorities given): those contracts are checked again, and so is every proxy read at
 * a lost height.
 */
export async function retractProxies(client: PoolClient, fromNumber: bigint, parties: Iterable<Address>): Promise<void> {
  const { rows } = await client.query<{ address: Buffer }>('SELECT address FROM proxy_implementations WHERE block_number >= $1', [
    fromNumber.toString(),
  ]);
  await markProxyChecks(client, [...rows.map((r) => hexFromBytea(r.address)), ...parties]);
}

/** Contracts to check, in address order. */
export const findProxyMarks = (pool: Pool, limit: number): Promise<AddressMark[]> => findAddressMarks(pool, 'proxy_marks', limit);

/**
 * Stores what the checks read at `head` found (a proxy's row replaced, a contract that is none
 * without one) and clears the marks checked under, unless a block written meanwhile marked the
 * contract again. Nothing is stored when `head` lost consensus meanwhile: the block row is locked
 * first, so that a retraction comes either before (the checks are dropped, the marks kept) or after
 * (and marks these proxies again).
 */
export async function saveProxyChecks(
  pool: Pool,
  head: { number: bigint; hash: Hex },
  checked: readonly (AddressMark & { proxy: ProxyRecord | null })[],
): Promise<boolean> {
  return writeAtConsensusBlock(pool, head.hash, checked, async (client, entries) => {
    const addresses = entries.map((e) => byteaFromHex(e.address));
    await client.query('DELETE FROM proxy_implementations WHERE address = ANY($1::bytea[])', [addresses]);
    for (const { address, proxy } of entries) {
      if (proxy === null) continue;
      await client.query(
        `INSERT INTO proxy_implementations (address, proxy_type, implementations, beacon, block_number) VALUES ($1, $2, $3::bytea[], $4, $5)`,
        [
          byteaFromHex(address),
          proxy.proxyType,
          proxy.implementations.map(byteaFromHex),
          nullableByteaFromHex(proxy.beacon),
          head.number.toString(),
        ],
      );
    }
    await clearAddressMarks(client, 'proxy_marks', entries);
  });
}
