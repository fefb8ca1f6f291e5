import { keccak_256 } from '@noble/hashes/sha3';
import type { Pool, PoolClient } from 'pg';
import type { Address, Hex } from '../model.js';
import { byteaFromHex, hexFromBytea } from './encode.js';
import { inLockOrder } from './lock-order.js';
import { writeAtConsensusBlock } from './address-marks.js';

/** Marks addresses for a read (again) of their runtime code, inside the writer's transaction. */
export async function markContractCodes(client: PoolClient, addresses: Iterable<Address>): Promise<void> {
  const marked = [...new Set([...addresses].map((a) => a.toLowerCase() as Address))].sort(inLockOrder);
  if (marked.length === 0) return;
  await client.query('INSERT INTO contract_code_marks (address) SELECT unnest($1::bytea[]) ON CONFLICT DO NOTHING', [
    marked.map(byteaFromHex),
  ]);
}

/** Addresses whose code is to be read, in address order. */
export async function findContractCodeMarks(pool: Pool, limit: number): Promise<Address[]> {
  const { rows } = await pool.query<{ address: Buffer }>('SELECT address FROM contract_code_marks ORDER BY address LIMIT $1', [limit]);
  return rows.map((r) => hexFromBytea(r.address));
}

export const codeHash = (code: Hex): Buffer => Buffer.from(keccak_256(Buffer.from(code.slice(2), 'hex')));

/**
 * Stores the code read at `head` for each address (a null, code the node could not give, stores none
 * and clears the mark all the same) and clears their marks. Nothing is stored when `head` lost
 * consensus meanwhile: the block row is locked first, as the coin balances do, so that a retraction
 * comes either before (the read is dropped, the marks kept) or after (it marks the addresses again).
 */
export async function saveContractCodes(
  pool: Pool,
  head: { number: bigint; hash: Hex },
  read: readonly { address: Address; code: Hex | null }[],
): Promise<boolean> {
  return writeAtConsensusBlock(pool, head.hash, read, async (client, entries) => {
    const known = entries.filter((e): e is { address: Address; code: Hex } => e.code !== null);
    if (known.length > 0) {
      const hashes = known.map((e) => codeHash(e.code));
      const unique = new Map(known.map((e, i) => [hashes[i]!.toString('hex'), e.code]));
      await client.query(
        `INSERT INTO bytecodes (hash, code) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ORDER BY 1 ON CONFLICT (hash) DO NOTHING`,
        [[...unique.keys()].map((h) => Buffer.from(h, 'hex')), [...unique.values()].map(byteaFromHex)],
      );
      await client.query(
        `INSERT INTO contract_codes (address, code_hash, block_number)
         SELECT a, h, $3::bigint FROM unnest($1::bytea[], $2::bytea[]) u(a, h)
         ON CONFLICT (address) DO UPDATE SET code_hash = excluded.code_hash, block_number = excluded.block_number`,
        [known.map((e) => byteaFromHex(e.address)), hashes, head.number.toString()],
      );
    }
    await client.query('DELETE FROM contract_code_marks WHERE address = ANY($1::bytea[])', [entries.map((e) => byteaFromHex(e.address))]);
  });
}

/** Inside a retraction: code read at the heights taken off the chain is read again. */
export async function retractContractCodes(client: PoolClient, fromNumber: bigint): Promise<void> {
  const { rows } = await client.query<{ address: Buffer }>('SELECT address FROM contract_codes WHERE block_number >= $1', [
    fromNumber.toString(),
  ]);
  await markContractCodes(
    client,
    rows.map((r) => hexFromBytea(r.address)),
  );
}
