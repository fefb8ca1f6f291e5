import type pg from 'pg';
import { planStableName } from '../store/read/plan-stable.js';

/**
 * A statement as the API sends it. A plan-stable one (planStableStatement) is prepared: parsed and
 * planned once per connection, PostgreSQL then keeping one generic plan, where planning was half of
 * what those lookups cost. Any other is planned for its values at each request; so is every one when
 * `prepare` is off (a pooler in transaction mode keeps no prepared statement between transactions).
 */
export function apiStatement(text: string, values: unknown[] | undefined, prepare: boolean): pg.QueryConfig {
  const name = prepare ? planStableName(text) : undefined;
  return name === undefined ? { text, values } : { name, text, values };
}
