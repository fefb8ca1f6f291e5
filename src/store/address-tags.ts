import type { Pool } from 'pg';
import type { AddressTagRecord } from '../model.js';
import { byteaFromHex } from './encode.js';
import { recordSourceSuccess } from './offchain-sources.js';
import { inTransaction } from './transaction.js';

/**
 * Replaces every address tag with `tags`, in one transaction (readers see the old set or the new), and
 * records the tags file's success.
 */
export async function replaceAddressTags(pool: Pool, tags: readonly AddressTagRecord[]): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('DELETE FROM address_tags');
    await client.query(
      `INSERT INTO address_tags (address, slug, name, tag_type, ordinal, meta)
       SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::jsonb[])`,
      [
        tags.map((t) => byteaFromHex(t.address)),
        tags.map((t) => t.slug),
        tags.map((t) => t.name),
        tags.map((t) => t.tagType),
        tags.map((t) => t.ordinal),
        tags.map((t) => (t.meta === null ? null : JSON.stringify(t.meta))),
      ],
    );
    await recordSourceSuccess(client, 'address_tags');
  });
}
