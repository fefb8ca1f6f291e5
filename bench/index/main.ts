/**
 * `npm run bench:index -- --scale small|full [--blocks N] [--only usual|bulk] [--statements FILE]`: the
 * indexing benchmark on its own, over the scale's chain or its first N blocks (the tuned server's
 * database is dropped at the end); `--only usual` runs only the fetch-and-decode floor and the usual run
 * into the embedded PostgreSQL, `--only bulk` only the floor and the bulk load's runs into both
 * databases; `--statements` writes the CPU of each statement of the usual runs to FILE.<target>, of the
 * bulk load's to FILE.bulk-<target>.
 */
import { parseBlocks, parseScale } from '../chain/scale.js';
import { runIndexBench } from './run.js';

const args = process.argv.slice(2);
const only = args.indexOf('--only');
const statements = args.indexOf('--statements');
const part = only >= 0 ? args[only + 1] : undefined;
if (part !== undefined && part !== 'usual' && part !== 'bulk') throw new Error(`--only takes usual or bulk, got ${part}`);
await runIndexBench({
  scale: parseScale(args),
  blocks: parseBlocks(args),
  keepDatabase: false,
  only: part,
  statementsFile: statements >= 0 ? args[statements + 1] : undefined,
  report: (line) => process.stdout.write(`${line}\n`),
});
