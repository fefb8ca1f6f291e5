/**
 * `npm run bench:api -- --scale small|full [--database-url <url>] [--only <ids>] [--connections <list>] [--no-signatures] [--serve-node-flags <list>]`:
 * the API benchmark on its own (`--only`: the endpoints of `cases.ts` to measure, comma-separated;
 * `--connections`: the concurrencies, 1,64 by default; `--no-signatures`: with the signatures table
 * emptied, so that nothing unverified is decoded; `--serve-node-flags`: node flags for `sextant serve`,
 * comma-separated, in its NODE_OPTIONS after the command's own). With
 * a database URL, on that already indexed database; without one, on a new database (sextant_bench_api_
 * and the scale) filled by the bench chain's direct loader, kept afterwards so that a later run can be
 * pointed at it.
 */
import { loadBenchChain } from '../chain/load.js';
import { parseScale } from '../chain/scale.js';
import { createTunedDatabase } from '../index/databases.js';
import { endpoints } from './cases.js';
import { runApiBench } from './run.js';

function option(args: readonly string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

const args = process.argv.slice(2);
const scale = parseScale(args);
const report = (line: string) => process.stdout.write(`${line}\n`);
const list = (name: string): string[] | undefined => option(args, name)?.split(',');
const only = list('--only');
const unknown = only?.filter((id) => !endpoints.some((e) => e.id === id)) ?? [];
if (unknown.length > 0) throw new Error(`--only: no endpoint ${unknown.join(', ')} in bench/api/cases.ts`);
const concurrencies = list('--connections')?.map(Number);
if (concurrencies?.some((c) => !Number.isInteger(c) || c < 1)) throw new Error('--connections takes positive integers, comma-separated');
let databaseUrl = option(args, '--database-url');
if (databaseUrl === undefined) {
  databaseUrl = await createTunedDatabase(`sextant_bench_api_${scale}`);
  report(`loading the ${scale} bench chain into ${databaseUrl}`);
  await loadBenchChain({ scale, databaseUrl, report });
}
await runApiBench({
  scale,
  databaseUrl,
  report,
  only,
  concurrencies,
  signatures: !args.includes('--no-signatures'),
  serveNodeFlags: list('--serve-node-flags'),
});
