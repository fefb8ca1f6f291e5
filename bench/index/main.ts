/**
 * `npm run bench:index -- --scale small|full [--blocks N]`: the indexing benchmark on its own, over
 * the scale's chain or its first N blocks (the tuned server's database is dropped at the end).
 */
import { parseBlocks, parseScale } from '../chain/scale.js';
import { runIndexBench } from './run.js';

const args = process.argv.slice(2);
await runIndexBench({
  scale: parseScale(args),
  blocks: parseBlocks(args),
  keepDatabase: false,
  report: (line) => process.stdout.write(`${line}\n`),
});
