/**
 * How much of mainnet block 18,000,000 the signature database names: of its transactions that call an
 * address with at least a selector of input, the share whose call decodes with the database's
 * signatures (no verified ABI: what a new Sextant on mainnet shows), and the selectors left unnamed,
 * most called first. Decoded by src/decoding's rule, with the signatures `start` loads into PostgreSQL.
 * Run: npm run bench:mainnet-methods
 */
import { abiOfSignature, decodeCall, readSignatureDatabase } from '../../src/decoding/index.js';
import type { Hex } from '../../src/model.js';
import { loadMainnetBlock18000000 } from '../../test/support/mainnet-fixtures.js';

const { block } = loadMainnetBlock18000000();
const transactions = block.transactions as { hash: Hex; to: Hex | null; input: Hex }[];
const signatures = await readSignatureDatabase();
const bySelector = new Map<string, string[]>();
for (const s of signatures) {
  if (s.type === 'function') bySelector.set(s.selector, [...(bySelector.get(s.selector) ?? []), `function ${s.signature}`]);
}

const calls = transactions.filter((t) => t.to !== null && t.input.length >= 10);
const unnamed = new Map<string, number>();
let named = 0;
for (const call of calls) {
  const selector = call.input.slice(0, 10).toLowerCase();
  const candidates = (bySelector.get(selector) ?? []).map(abiOfSignature);
  if (decodeCall({ own: [], candidates }, call.input) !== null) named++;
  else unnamed.set(selector, (unnamed.get(selector) ?? 0) + 1);
}

const share = (n: number) => `${((100 * n) / calls.length).toFixed(1)}%`;
console.log(`block 18,000,000: ${transactions.length} transactions, ${calls.length} calls with a selector`);
console.log(`named by the signature database: ${named} (${share(named)}); unnamed: ${calls.length - named}`);
console.log('unnamed selectors, most called first:');
for (const [selector, count] of [...unnamed].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
  console.log(`  ${selector}  ${count}`);
}
