import type { Hex } from '../../model.js';
import { hexFromBytea } from '../encode.js';
import type { Db } from './sql.js';

/**
 * The selectors of the functions each of these names names, in verified ABIs (contract_methods) and in
 * the signature database; a name nothing knows is absent. At most `limit` selectors in all, in order of
 * name and selector.
 */
export async function readSelectorsNamed(db: Db, names: readonly string[], limit: number): Promise<Map<string, Hex[]>> {
  const found = new Map<string, Hex[]>();
  if (names.length === 0) return found;
  const { rows } = await db.query<{ name: string; selector: Buffer }>(
    `SELECT name, selector FROM (
       SELECT name, selector FROM signatures WHERE type = 'function' AND name = ANY($1::text[])
       UNION
       SELECT abi ->> 'name', selector FROM contract_methods WHERE type = 'function' AND abi ->> 'name' = ANY($1::text[])
     ) named
     ORDER BY name, selector LIMIT $2`,
    [names, limit],
  );
  for (const r of rows) found.set(r.name, [...(found.get(r.name) ?? []), hexFromBytea(r.selector)]);
  return found;
}
