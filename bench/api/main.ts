/**
 * `npm run bench:api -- --scale small|full [--database-url <url>]`: the API benchmark on its own. With
 * a database URL, on that already indexed database; without one, on a new database (sextant_bench_api_
 * and the scale) filled by the bench chain's direct loader, kept afterwards so that a later run can be
 * pointed at it.
 */
import { loadBenchChain } from '../chain/load.js';
import { parseScale } from '../chain/scale.js';
import { createTunedDatabase } from '../index/databases.js';
import { runApiBench } from './run.js';

function option(args: readonly string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

const args = process.argv.slice(2);
const scale = parseScale(args);
const report = (line: string) => process.stdout.write(`${line}\n`);
let databaseUrl = option(args, '--database-url');
if (databaseUrl === undefined) {
  databaseUrl = await createTunedDatabase(`sextant_bench_api_${scale}`);
  report(`loading the ${scale} bench chain into ${databaseUrl}`);
  await loadBenchChain({ scale, databaseUrl, report });
}
await runApiBench({ scale, databaseUrl, report });
