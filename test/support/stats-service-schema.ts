import { type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/**
 * The answers of Blockscout's stats service as its frontend reads them: the types of
 * `@blockscout/stats-types` 2.9.0 (generated from blockscout-rs `stats.proto`), written here apart from
 * the routes' own schemas so that the routes are checked against the service, not against themselves.
 * Members the types mark optional may be missing; no other member is allowed, so that a renamed one shows.
 */

const strict = { additionalProperties: false };

const Counter = Type.Object(
  { id: Type.String(), value: Type.String(), title: Type.String(), units: Type.Optional(Type.String()), description: Type.String() },
  strict,
);

const Resolution = Type.Union(['DAY', 'WEEK', 'MONTH', 'YEAR'].map((r) => Type.Literal(r)));

const LineChartInfo = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    description: Type.String(),
    units: Type.Optional(Type.String()),
    resolutions: Type.Array(Resolution),
  },
  strict,
);

const Day = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });

const Point = Type.Object({ date: Day, date_to: Day, value: Type.String(), is_approximate: Type.Boolean() }, strict);

const LineChart = Type.Object({ chart: Type.Array(Point), info: LineChartInfo }, strict);

const pages: Record<string, TSchema> = {
  '/api/v1/counters': Type.Object({ counters: Type.Array(Counter) }, strict),
  '/api/v1/lines': Type.Object(
    { sections: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), charts: Type.Array(LineChartInfo) }, strict)) },
    strict,
  ),
  '/api/v1/lines/{name}': LineChart,
  '/api/v1/pages/main': Type.Object(
    {
      average_block_time: Type.Optional(Counter),
      total_addresses: Type.Optional(Counter),
      total_blocks: Type.Optional(Counter),
      total_transactions: Type.Optional(Counter),
      yesterday_transactions: Type.Optional(Counter),
      total_operational_transactions: Type.Optional(Counter),
      yesterday_operational_transactions: Type.Optional(Counter),
      op_stack_total_operational_transactions: Type.Optional(Counter),
      op_stack_yesterday_operational_transactions: Type.Optional(Counter),
      daily_new_transactions: Type.Optional(LineChart),
      daily_new_operational_transactions: Type.Optional(LineChart),
      op_stack_daily_new_operational_transactions: Type.Optional(LineChart),
    },
    strict,
  ),
  '/api/v1/pages/transactions': Type.Object(
    {
      pending_transactions_30m: Type.Optional(Counter),
      transactions_fee_24h: Type.Optional(Counter),
      average_transactions_fee_24h: Type.Optional(Counter),
      transactions_24h: Type.Optional(Counter),
      operational_transactions_24h: Type.Optional(Counter),
      op_stack_operational_transactions_24h: Type.Optional(Counter),
    },
    strict,
  ),
  '/api/v1/pages/contracts': Type.Object(
    {
      total_contracts: Type.Optional(Counter),
      new_contracts_24h: Type.Optional(Counter),
      total_verified_contracts: Type.Optional(Counter),
      new_verified_contracts_24h: Type.Optional(Counter),
    },
    strict,
  ),
};

const compiled = new Map(Object.entries(pages).map(([path, schema]) => [path, TypeCompiler.Compile(schema)]));

/** The stats service's template of a request path (`/api/v1/lines/newTxns` → `/api/v1/lines/{name}`), if it is one of its paths. */
export function statsServiceTemplate(path: string): string | undefined {
  // The router ignores a trailing slash.
  const route = path.length > 1 ? path.replace(/\/$/, '') : path;
  if (compiled.has(route)) return route;
  return /^\/api\/v1\/lines\/[^/]+$/.test(route) ? '/api/v1/lines/{name}' : undefined;
}

/** The stats service's paths, as Fastify routes them. */
export const statsServiceRoutes = [...compiled.keys()].map((path) => path.replace('{name}', ':name'));

/** The errors of a 200 answer of a stats service path under the service's types; empty when it conforms. */
export function statsServiceErrors(template: string, body: unknown): string[] {
  const check = compiled.get(template)!;
  return [...check.Errors(body)].slice(0, 8).map((e) => `${e.path || '/'} ${e.message}`);
}
