import { isDeepStrictEqual } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { knownMethodSelectors } from './expected-json.js';
import { type ApiClient, type ApiResponse, checkedResponse, collectList, queryString } from './http-client.js';

/**
 * Every answer of the nine endpoints (E1-E9) about a set of addresses, tokens, NFT ids, transactions
 * and blocks, as a map from request path to JSON: two indexes of the same chain are identical when
 * their snapshots are deep-equal. Lists are followed to their end through next_page_params, and the
 * page boundaries are part of the answer. No field is ignored but the home page's counts of today and
 * of the last 24 hours (clockDependentMembers): no other answer depends on the wall-clock time
 * (confirmations and block-time figures follow the indexed head, not the clock).
 */

export interface ChainSubjects {
  /** Lowercase 0x-hex, as are all the hashes below. */
  addresses: string[];
  tokens: string[];
  instances: { token: string; id: string }[];
  transactions: string[];
  /** Block numbers (decimal) and block hashes, each asked for its withdrawals. */
  blocks: string[];
}

export type EndpointSnapshot = Map<string, unknown>;

/** An ApiClient that sends its requests to a Fastify instance in-process, without a socket. */
export function injectedApi(app: FastifyInstance): ApiClient {
  return {
    base: '',
    async get(path): Promise<ApiResponse> {
      const response = await app.inject({ method: 'GET', url: path });
      const headers = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
      }
      return checkedResponse(path, response.statusCode, headers, response.body);
    },
  };
}

const hex = (column: string) => `'0x' || encode(${column}, 'hex')`;

/**
 * Everything a database knows of: every address, token and NFT id in any table (also those left
 * behind by retracted blocks, so that a leftover shows up as a difference), the transactions and the
 * consensus blocks.
 */
export async function indexedSubjects(pool: Pool): Promise<ChainSubjects> {
  const column = async (sql: string): Promise<string[]> => (await pool.query<{ v: string }>(sql)).rows.map((r) => r.v);
  const addresses = await column(
    `SELECT DISTINCT ${hex('a')} AS v FROM (
       SELECT hash FROM addresses
       UNION SELECT miner FROM blocks WHERE consensus
       UNION SELECT from_address FROM transactions UNION SELECT to_address FROM transactions
       UNION SELECT created_contract FROM transactions
       UNION SELECT from_address FROM token_transfers UNION SELECT to_address FROM token_transfers
       UNION SELECT from_address FROM internal_transactions UNION SELECT to_address FROM internal_transactions
       UNION SELECT created_contract FROM internal_transactions
       UNION SELECT address FROM withdrawals UNION SELECT address FROM address_token_balances
       UNION SELECT owner FROM token_instances UNION SELECT address FROM tokens
       UNION SELECT address FROM logs) s(a)
     WHERE a IS NOT NULL`,
  );
  const instances = await pool.query<{ token: string; id: string }>(
    `SELECT ${hex('token_address')} AS token, token_id::text AS id FROM token_instances
     UNION SELECT ${hex('token_address')}, token_id::text FROM token_transfers WHERE token_id IS NOT NULL`,
  );
  const blocks = await pool.query<{ number: string; hash: string }>(
    `SELECT number::text, ${hex('hash')} AS hash FROM blocks WHERE consensus`,
  );
  return normalizeSubjects({
    addresses,
    tokens: await column(`SELECT ${hex('address')} AS v FROM tokens`),
    instances: instances.rows,
    transactions: await column(`SELECT ${hex('hash')} AS v FROM transactions`),
    blocks: blocks.rows.flatMap((b) => [b.number, b.hash]),
  });
}

/** The union of several sets of subjects, deduplicated and in a fixed order. */
export function mergeSubjects(...sets: ChainSubjects[]): ChainSubjects {
  return normalizeSubjects({
    addresses: sets.flatMap((s) => s.addresses),
    tokens: sets.flatMap((s) => s.tokens),
    instances: sets.flatMap((s) => s.instances),
    transactions: sets.flatMap((s) => s.transactions),
    blocks: sets.flatMap((s) => s.blocks),
  });
}

function normalizeSubjects(s: ChainSubjects): ChainSubjects {
  const unique = (values: string[]) => [...new Set(values.map((v) => v.toLowerCase()))].sort();
  const instances = new Map(s.instances.map((i) => [`${i.token.toLowerCase()}/${i.id}`, { token: i.token.toLowerCase(), id: i.id }]));
  return {
    addresses: unique(s.addresses),
    tokens: unique(s.tokens),
    instances: [...instances.keys()].sort().map((key) => instances.get(key)!),
    transactions: unique(s.transactions),
    blocks: unique(s.blocks),
  };
}

const tokenTypeFilters = ['', 'ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404'];
const nftTypeFilters = ['', 'ERC-721', 'ERC-1155', 'ERC-404'];
const blockTypeFilters = ['', 'block', 'uncle', 'reorg'];
/** The snapshot keys of the lists of blocks that lost consensus, which only an index that followed reorgs has. */
export const blockListsOfLostBlocks = ['/api/v2/blocks?type=reorg'];
const transactionKindFilters = ['', 'coin_transfer', 'contract_call', 'contract_creation', 'token_creation', 'token_transfer'];
/** Searches by words: the demo tokens' names and symbols (in another case), and an ENS name, which finds nothing. */
const searchWords = ['Sextant Demo', 'sdt', 'SNFT', 'vitalik.eth'];

/** Every request the snapshot makes: a path and the filters sent with each of its pages. */
function requests(subjects: ChainSubjects): [string, Record<string, string>][] {
  const all: [string, Record<string, string>][] = [];
  for (const filter of ['validated', 'pending']) {
    for (const type of transactionKindFilters) all.push(['/api/v2/transactions', { filter, type }]);
  }
  for (const method of Object.keys(knownMethodSelectors)) all.push(['/api/v2/transactions', { method }]);
  for (const address of subjects.addresses) {
    const base = `/api/v2/addresses/${address}`;
    for (const type of tokenTypeFilters) all.push([`${base}/tokens`, { type }]);
    for (const type of nftTypeFilters) all.push([`${base}/nft/collections`, { type }]);
    all.push([`${base}/blocks-validated`, {}]);
    for (const filter of ['', 'to', 'from']) all.push([`${base}/internal-transactions`, { filter }]);
    for (const filter of ['to', 'from']) all.push([`${base}/token-transfers`, { filter }]);
    for (const type of tokenTypeFilters) all.push([`${base}/token-transfers`, { type }]);
    for (const token of subjects.tokens) all.push([`${base}/token-transfers`, { token }]);
    all.push([`${base}/logs`, {}]);
    all.push([base, {}], [`${base}/counters`, {}], [`${base}/tabs-counters`, {}]);
    for (const filter of ['', 'to', 'from']) all.push([`${base}/transactions`, { filter }]);
    all.push([`${base}/coin-balance-history`, {}], [`${base}/coin-balance-history-by-day`, {}]);
    all.push([`/api/v2/smart-contracts/${address}`, {}]);
  }
  for (const { token, id } of subjects.instances) all.push([`/api/v2/tokens/${token}/instances/${id}/transfers`, {}]);
  for (const token of subjects.tokens) {
    for (const page of ['', '/counters', '/transfers', '/holders', '/instances']) all.push([`/api/v2/tokens/${token}${page}`, {}]);
  }
  for (const { token, id } of subjects.instances) {
    for (const page of ['', '/holders', '/transfers-count']) all.push([`/api/v2/tokens/${token}/instances/${id}${page}`, {}]);
  }
  for (const hash of subjects.transactions) all.push([`/api/v2/transactions/${hash}/raw-trace`, {}]);
  for (const hash of subjects.transactions) all.push([`/api/v2/transactions/${hash}/logs`, {}]);
  for (const block of subjects.blocks) all.push([`/api/v2/blocks/${block}/withdrawals`, {}]);
  // type=reorg lists the blocks that lost consensus: the one answer a live index that followed reorgs
  // gives differently from a clean one (see blockListsOfLostBlocks).
  for (const type of blockTypeFilters) all.push(['/api/v2/blocks', { type }]);
  for (const hash of subjects.transactions) {
    all.push([`/api/v2/transactions/${hash}`, {}]);
    all.push([`/api/v2/transactions/${hash}/token-transfers`, {}]);
    all.push([`/api/v2/transactions/${hash}/internal-transactions`, {}]);
    all.push([`/api/v2/transactions/${hash}/state-changes`, {}]);
  }
  for (const block of subjects.blocks) {
    all.push([`/api/v2/blocks/${block}`, {}]);
    all.push([`/api/v2/blocks/${block}/transactions`, {}]);
  }
  for (const path of homePaths) all.push([path, {}]);
  // Search: every subject, and quick search and check-redirect (which read the same) for one of each kind.
  for (const q of [...subjects.transactions, ...subjects.blocks, ...subjects.addresses, ...searchWords]) {
    all.push(['/api/v2/search', { q }]);
  }
  const oneOfEach = [subjects.transactions[0], subjects.blocks[0], subjects.addresses[0]].filter((q) => q !== undefined);
  for (const q of [...oneOfEach, ...searchWords]) {
    for (const path of ['/api/v2/search/quick', '/api/v2/search/check-redirect']) all.push([path, { q }]);
  }
  return all;
}

/** The home page's endpoints, which are about the whole chain rather than a subject. */
const homePaths = [
  '/api/v2/main-page/blocks',
  '/api/v2/main-page/transactions',
  '/api/v2/main-page/indexing-status',
  '/api/v2/stats',
  '/api/v2/transactions/stats',
  '/api/v2/config/backend-version',
  '/api/v2/tokens',
  '/api/v2/addresses',
  '/api/v2/token-transfers',
  '/api/v2/internal-transactions',
  '/api/v2/withdrawals',
  '/api/v2/smart-contracts',
  '/api/v2/smart-contracts/counters',
  '/api/v2/stats/charts/transactions',
  '/api/v2/stats/charts/market',
  // The stats service: its counters, pages and lines, whose figures are kept with the writes and taken back on a reorg.
  '/api/v1/counters',
  '/api/v1/pages/main',
  '/api/v1/pages/transactions',
  '/api/v1/pages/contracts',
  '/api/v1/lines',
  '/api/v1/lines/newTxns',
  '/api/v1/lines/newBlocks',
  '/api/v1/lines/activeAccounts',
  '/api/v1/lines/averageBlockTime',
  '/api/v1/lines/newContracts',
  '/api/v1/lines/newTokenTransfers',
  '/api/v1/lines/gasUsedGrowth?resolution=WEEK',
  '/api/v1/lines/newAccounts',
  '/api/v1/lines/accountsGrowth?resolution=MONTH',
  '/api/v1/lines/averageTxnFee',
  '/api/v1/lines/txnsFee?resolution=WEEK',
  '/api/v1/lines/txnsSuccessRate',
  '/api/v1/lines/averageBlockSize',
  '/api/v1/lines/newNativeCoinTransfers',
  '/api/v1/lines/averageGasLimit',
  '/api/v1/lines/averageGasPrice',
  '/api/v1/lines/networkUtilization',
  '/api/v1/lines/averageGasUsed',
  '/api/v1/lines/verifiedContractsGrowth',
];

/**
 * The members of answers that count the blocks of a span of wall-clock time (today, the last 24
 * hours), or come from a process's gas price oracle (figures of the chain as it was when the process
 * last computed them, up to 30 s ago, and when that was): two indexes of the same chain asked a moment
 * apart may straddle a boundary, and each process computes at its own time, so the snapshot leaves
 * them out (test/api/home.test.ts and test/api/stats-node.test.ts check them).
 */
const clockDependentMembers: Record<string, string[]> = {
  '/api/v2/stats': ['transactions_today', 'gas_used_today', 'gas_prices', 'gas_price_updated_at', 'gas_prices_update_in'],
  '/api/v2/transactions/stats': ['transactions_count_24h', 'transaction_fees_sum_24h', 'transaction_fees_avg_24h'],
  '/api/v2/smart-contracts/counters': ['new_smart_contracts_24h', 'new_verified_smart_contracts_24h'],
  // Its counters of the last 24 hours and 30 minutes among them (each page's totals are compared on the pages).
  '/api/v1/counters': ['counters'],
  '/api/v1/pages/transactions': ['pending_transactions_30m', 'transactions_fee_24h', 'average_transactions_fee_24h', 'transactions_24h'],
  '/api/v1/pages/contracts': ['new_contracts_24h', 'new_verified_contracts_24h'],
};

function withoutClockDependentMembers(path: string, answer: unknown): unknown {
  const members = clockDependentMembers[path];
  if (members === undefined) return answer;
  const { status, body } = answer as { status: number; body: Record<string, unknown> };
  return { status, body: Object.fromEntries(Object.entries(body).filter(([name]) => !members.includes(name))) };
}

/** A list's items and page boundaries, or the status and body of an answer that is not a list (or not a 200). */
async function answer(api: ApiClient, path: string, filters: Record<string, string>): Promise<unknown> {
  const first = await api.get(path + queryString(filters));
  const isList = first.status === 200 && typeof first.body === 'object' && first.body !== null && 'next_page_params' in first.body;
  if (!isList) return { status: first.status, body: first.body };
  const { items, pageSizes, nextPageParams } = await collectList(api, path, filters);
  return { items, pageSizes, nextPageParams };
}

/** Requests in flight at once: enough to keep the database busy while answers are parsed. */
const concurrency = 4;

/** The answers to every request about these subjects, keyed by request path and query. */
export async function collectEndpointSnapshot(api: ApiClient, subjects: ChainSubjects): Promise<EndpointSnapshot> {
  const pending = requests(subjects);
  const answers = new Map<string, unknown>();
  const worker = async () => {
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
      const [path, filters] = next;
      answers.set(path + queryString(filters), withoutClockDependentMembers(path, await answer(api, path, filters)));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return new Map([...answers.keys()].sort().map((key) => [key, answers.get(key)]));
}

/** The request paths whose answers differ between two snapshots (or that only one has). */
export function snapshotDifferences(actual: EndpointSnapshot, expected: EndpointSnapshot): string[] {
  const paths = [...new Set([...actual.keys(), ...expected.keys()])].sort();
  return paths.filter((path) => !isDeepStrictEqual(actual.get(path), expected.get(path)));
}

/** Where two answers first differ (a JSON path) and the two values there, short enough for a failure message. */
export function firstDifference(actual: unknown, expected: unknown, path = '$'): string | null {
  if (isDeepStrictEqual(actual, expected)) return null;
  if (typeof actual === 'object' && actual !== null && typeof expected === 'object' && expected !== null) {
    const keys = [...new Set([...Object.keys(actual), ...Object.keys(expected)])];
    for (const key of keys) {
      const found = firstDifference((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${path}.${key}`);
      if (found !== null) return found;
    }
  }
  const show = (value: unknown) => (JSON.stringify(value) ?? 'undefined').slice(0, 300);
  return `${path}: ${show(actual)} instead of ${show(expected)}`;
}
