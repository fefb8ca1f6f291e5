import type pg from 'pg';

/**
 * At most this many statement texts are prepared, the first ones run: a connection keeps each it has
 * prepared, and a client could make the API build many texts (one per combination of filters).
 */
const MAX_PREPARED = 200;
const names = new Map<string, string>();

/**
 * A statement as the API sends it. Prepared, it is parsed and planned once per connection, and
 * PostgreSQL keeps its plan (a generic one once that costs no more than planning each time): planning
 * is about half the database's time on the list pages. Not prepared when `prepare` is off (a pooler in
 * transaction mode keeps no prepared statement between transactions) or the bound is reached.
 */
export function apiStatement(text: string, values: unknown[] | undefined, prepare: boolean): pg.QueryConfig {
  let name = prepare ? names.get(text) : undefined;
  if (prepare && name === undefined && names.size < MAX_PREPARED) {
    name = `sextant_api_${names.size}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}
