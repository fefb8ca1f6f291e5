/**
 * `npm run bench` (small scale, a few minutes) and `npm run bench:full` (the sizes): the
 * indexing benchmark, which leaves the tuned server's database fully indexed (blocks, traces, token and
 * NFT metadata), then the API benchmark on that database, which is dropped at the end. `--blocks N`
 * cuts the chain to its first N blocks, for a run that must fit in less time.
 */
import { runApiBench } from './api/run.js';
import { parseBlocks, parseScale } from './chain/scale.js';
import { dropDatabase } from './index/databases.js';
import { runIndexBench } from './index/run.js';

const args = process.argv.slice(2);
const scale = parseScale(args);
const report = (line: string) => process.stdout.write(`${line}\n`);
const started = performance.now();
const indexed = await runIndexBench({ scale, blocks: parseBlocks(args), keepDatabase: true, report });
try {
  await runApiBench({ scale, databaseUrl: indexed.databaseUrl, report });
} finally {
  await dropDatabase(new URL(indexed.databaseUrl).pathname.slice(1));
}
report(`bench (${scale}) done in ${((performance.now() - started) / 60_000).toFixed(1)} min`);
