import { tokenSearchWords } from '../../src/store/read/search.js';
import type { Db } from '../../src/store/read/sql.js';
import type { BenchKeys } from '../chain/keys.js';
import type { DeepPage } from './pages.js';

export type EndpointId =
  | 'E1'
  | 'E2'
  | 'E3'
  | 'E4'
  | 'E5'
  | 'E6'
  | 'E7'
  | 'E8'
  | 'E9'
  | TransactionBlockPageId
  | TokenPageId
  | AddressPageEndpointId
  | HomePageEndpointId
  | SearchEndpointId
  | ChainListId
  | EtherscanEndpointId
  | ChartEndpointId;

/** The Etherscan-style API's lists that forge, hardhat and scripts read. */
type EtherscanEndpointId = 'etherscan-txlist' | 'etherscan-tokentx' | 'etherscan-getlogs';

/** The charts: the address balance chart, the stats service's API, Blockscout's transactions chart. */
type ChartEndpointId = 'address-balance-by-day' | 'stats-line' | 'stats-counters' | 'stats-page-main' | 'charts-transactions';

/** The transaction and block pages. */
type TransactionBlockPageId = 'tx' | 'tx-transfers' | 'tx-internal' | 'tx-state-changes' | 'blocks' | 'block' | 'block-txs';

/** The token and token instance pages. */
type TokenPageId =
  | 'token'
  | 'token-counters'
  | 'token-transfers'
  | 'token-holders'
  | 'token-instances'
  | 'token-instance'
  | 'token-instance-holders'
  | 'token-instance-transfers-count';

/** The address page: the address, its counters, its tab counts, its transactions, its logs. */
type AddressPageEndpointId = 'address' | 'address-counters' | 'address-tabs-counters' | 'address-transactions' | 'address-logs';

/** The home page: its two lists, the indexing status, the chain's figures and the transactions page's. */
type HomePageEndpointId = 'main-page-blocks' | 'main-page-transactions' | 'main-page-indexing-status' | 'stats' | 'transactions-stats';

/** The chain-wide lists: tokens, top accounts, token transfers, internal transactions, withdrawals. */
type ChainListId = 'tokens' | 'top-addresses' | 'all-token-transfers' | 'all-internal-transactions' | 'all-withdrawals';

/** Search, paged, and the search box's quick search. */
type SearchEndpointId = 'search' | 'search-quick';

export interface Endpoint {
  id: EndpointId;
  title: string;
  /** Whether the list pages (E6 is one trace; E9 a block's few withdrawals). */
  deepPage: boolean;
  /**
   * The answer is all the key holds, not a page of it (E6, a whole trace): the hot key's answer is
   * larger than the cold key's by as much as the key is busier, so the first pages' target (hot within
   * 2 × cold) does not apply; both keys are still measured.
   */
  wholeAnswer?: boolean;
  /**
   * Groups of the indexed data, one per key the endpoint can be asked about: the first page's URL
   * (`path`) and how many items it lists (`n`).
   */
  keys: string;
  /**
   * The cold key's first page, for the lists keyed by an address or an NFT: the generated chain's cold
   * key, which lists a little more than a page. Without it, the cold key is chosen from `keys`.
   */
  coldPath?: (keys: BenchKeys) => string;
  /**
   * For the lists keyed by a generated address, contract or search word without a `coldPath`: the
   * cold key is the one with the fewest items among those that list at least this many (a full first
   * page, as the hot key's), so that hot and cold compare answers of one size; on a chain too short
   * for that, the one with the most items after the hot key.
   */
  coldFullPage?: number;
  /**
   * The deep page of a list paged by number or block range rather than by next_page_params: the page
   * after about `depth` of the key's `items`.
   */
  deepPath?: (db: Db, firstPath: string, items: number, depth: number) => Promise<DeepPage>;
}

/** The API's page size: a cold key with more items than this has a full first page, as the hot key has. */
export const pageSize = 50;

/** The Etherscan-style API's page size here, and its deepest item (Blockscout's page × offset limit). */
const etherscanOffset = 100;
const etherscanWindow = 10_000;
/** The most logs one `getLogs` answers. */
const getLogsLimit = 1_000;

/** The page of `page` and `offset` that starts at about `depth` items, within Blockscout's window. */
async function etherscanDeepPage(_db: Db, firstPath: string, items: number, depth: number): Promise<DeepPage> {
  const start = Math.min(depth, etherscanWindow - etherscanOffset, Math.max(0, items - 1));
  const page = Math.floor(start / etherscanOffset) + 1;
  const url = new URL(firstPath, 'http://x');
  url.searchParams.set('page', String(page));
  return { path: `${url.pathname}${url.search}`, depth: (page - 1) * etherscanOffset };
}

/** getLogs has no pages: its deep "page" is the range from the block of the address's `depth`-th log on. */
async function logsDeepPage(db: Db, firstPath: string, items: number, depth: number): Promise<DeepPage> {
  const url = new URL(firstPath, 'http://x');
  const address = Buffer.from(url.searchParams.get('address')!.slice(2), 'hex');
  const skip = Math.min(depth, Math.max(0, items - 1));
  const { rows } = await db.query<{ block_number: string }>(
    'SELECT block_number FROM logs WHERE address = $1 ORDER BY block_number, log_index OFFSET $2 LIMIT 1',
    [address, skip],
  );
  url.searchParams.set('fromBlock', rows[0]?.block_number ?? '0');
  return { path: `${url.pathname}${url.search}`, depth: skip };
}

const hex = (column: string) => `'0x' || encode(${column}, 'hex')`;

/**
 * Token searches and how many tokens each finds: the first three letters of each name (hot: the
 * generated chain names its ERC-20s "Token n" and its ERC-721s "Collection n", so "Tok" and "Col" each
 * find about half its tokens), and the prefixes of three letters or more of the longest symbols
 * ("T10499" finds one), among which the cold key is the one that fills a page with the fewest tokens.
 */
const tokenSearchKeys = (path: string) =>
  `SELECT '${path}?q=' || w.q AS path, (SELECT count(*) FROM tokens k WHERE ${tokenSearchWords('k')} @@ to_tsquery('simple', w.q || ':*')) AS n
   FROM (SELECT DISTINCT left(name, 3) AS q FROM tokens WHERE name ~ '^[A-Za-z0-9]{3}'
         UNION
         SELECT left(l.symbol, length) FROM
           (SELECT symbol FROM tokens WHERE symbol ~ '^[A-Za-z0-9]+$' ORDER BY length(symbol) DESC, symbol LIMIT 10) l
           CROSS JOIN generate_series(3, length(l.symbol)) length) w`;

export const endpoints: Endpoint[] = [
  {
    id: 'E1',
    title: 'tokens an address holds',
    deepPage: true,
    keys: `SELECT '/api/v2/addresses/' || ${hex('address')} || '/tokens' AS path, count(*) AS n
           FROM address_token_balances WHERE value > 0 GROUP BY address`,
    coldPath: (k) => `/api/v2/addresses/${k.coldAddress}/tokens`,
  },
  {
    // The list has no key: "hot" is the whole list, "cold" a method selector only a few transactions call.
    id: 'E2',
    title: 'transactions',
    deepPage: true,
    keys: `SELECT '/api/v2/transactions' AS path, count(*) AS n FROM transactions
           UNION ALL
           SELECT '/api/v2/transactions?method=' || ${hex('substring(input FROM 1 FOR 4)')}, count(*)
           FROM transactions WHERE length(input) >= 4 GROUP BY substring(input FROM 1 FOR 4)`,
  },
  {
    id: 'E3',
    title: 'NFT collections of an address',
    deepPage: true,
    keys: `SELECT '/api/v2/addresses/' || ${hex('b.address')} || '/nft/collections' AS path, count(DISTINCT b.token_address) AS n
           FROM address_token_balances b JOIN tokens k ON k.address = b.token_address
           WHERE k.type <> 'ERC-20' AND b.value > 0 GROUP BY b.address`,
    coldPath: (k) => `/api/v2/addresses/${k.coldAddress}/nft/collections`,
  },
  {
    id: 'E4',
    title: 'transfers of one NFT',
    deepPage: true,
    keys: `SELECT '/api/v2/tokens/' || ${hex('token_address')} || '/instances/' || token_id::text || '/transfers' AS path, count(*) AS n
           FROM token_transfers WHERE token_id IS NOT NULL AND token_type IN ('ERC-721', 'ERC-1155')
           GROUP BY token_address, token_id`,
    coldPath: (k) => `/api/v2/tokens/${k.coldInstance.token}/instances/${k.coldInstance.id}/transfers`,
  },
  {
    id: 'E5',
    title: 'blocks validated by an address',
    deepPage: true,
    keys: `SELECT '/api/v2/addresses/' || ${hex('miner')} || '/blocks-validated' AS path, count(*) AS n
           FROM blocks WHERE consensus GROUP BY miner`,
    coldPath: (k) => `/api/v2/addresses/${k.coldMiner}/blocks-validated`,
  },
  {
    id: 'E6',
    title: 'raw trace of a transaction',
    deepPage: false,
    wholeAnswer: true,
    keys: `SELECT '/api/v2/transactions/' || ${hex('transaction_hash')} || '/raw-trace' AS path, count(*) AS n
           FROM internal_transactions GROUP BY transaction_hash`,
  },
  {
    id: 'E7',
    title: 'internal transactions of an address',
    deepPage: true,
    keys: `SELECT '/api/v2/addresses/' || ${hex('a')} || '/internal-transactions' AS path, count(*) AS n
           FROM (SELECT from_address AS a FROM internal_transactions WHERE index > 0 OR type <> 'call'
                 UNION ALL
                 SELECT coalesce(to_address, created_contract) FROM internal_transactions WHERE index > 0 OR type <> 'call') s
           GROUP BY a`,
    coldPath: (k) => `/api/v2/addresses/${k.coldAddress}/internal-transactions`,
  },
  {
    id: 'E8',
    title: 'token transfers of an address',
    deepPage: true,
    keys: `SELECT '/api/v2/addresses/' || ${hex('a')} || '/token-transfers' AS path, count(*) AS n
           FROM (SELECT from_address AS a FROM token_transfers UNION ALL SELECT to_address FROM token_transfers) s
           GROUP BY a`,
    coldPath: (k) => `/api/v2/addresses/${k.coldAddress}/token-transfers`,
  },
  {
    id: 'E9',
    title: 'withdrawals of a block',
    deepPage: false,
    keys: `SELECT '/api/v2/blocks/' || b.number::text || '/withdrawals' AS path, count(*) AS n
           FROM withdrawals w JOIN blocks b ON b.hash = w.block_hash AND b.consensus GROUP BY b.number`,
  },
  // The token pages: each key a token (by its transfers, holders or ids), or one NFT id.
  {
    id: 'token',
    title: 'a token',
    deepPage: false,
    keys: `SELECT '/api/v2/tokens/' || ${hex('address')} AS path, transfers_count AS n FROM tokens`,
  },
  {
    id: 'token-counters',
    title: "a token's counters",
    deepPage: false,
    keys: `SELECT '/api/v2/tokens/' || ${hex('address')} || '/counters' AS path, transfers_count AS n FROM tokens`,
  },
  {
    id: 'token-transfers',
    title: 'transfers of a token',
    deepPage: true,
    keys: `SELECT '/api/v2/tokens/' || ${hex('address')} || '/transfers' AS path, transfers_count AS n FROM tokens`,
  },
  {
    id: 'token-holders',
    title: 'holders of a token',
    deepPage: true,
    keys: `SELECT '/api/v2/tokens/' || ${hex('token_address')} || '/holders' AS path, count(*) AS n
           FROM address_token_balances WHERE value > 0 GROUP BY token_address`,

    coldFullPage: pageSize,
  },
  {
    id: 'token-instances',
    title: 'NFT ids of a token',
    deepPage: true,
    keys: `SELECT '/api/v2/tokens/' || ${hex('token_address')} || '/instances' AS path, count(*) AS n
           FROM token_instances GROUP BY token_address`,
  },
  {
    id: 'token-instance',
    title: 'one NFT id',
    deepPage: false,
    keys: `SELECT '/api/v2/tokens/' || ${hex('token_address')} || '/instances/' || token_id::text AS path, 1 AS n
           FROM token_instances`,
  },
  {
    id: 'token-instance-holders',
    title: 'holders of one NFT id',
    deepPage: true,
    keys: `SELECT '/api/v2/tokens/' || ${hex('token_address')} || '/instances/' || token_id::text || '/holders' AS path, count(*) AS n
           FROM address_token_balances WHERE token_id IS NOT NULL AND value > 0 GROUP BY token_address, token_id`,
  },
  {
    id: 'token-instance-transfers-count',
    title: 'transfers count of one NFT id',
    deepPage: false,
    keys: `SELECT '/api/v2/tokens/' || ${hex('token_address')} || '/instances/' || token_id::text || '/transfers-count' AS path, count(*) AS n
           FROM token_transfers WHERE token_id IS NOT NULL AND token_type IN ('ERC-721', 'ERC-1155')
           GROUP BY token_address, token_id`,
  },
  {
    // Keyed by the transaction's token transfers: the hot key embeds ten and overflows.
    id: 'tx',
    title: 'a transaction',
    deepPage: false,
    keys: `SELECT '/api/v2/transactions/' || ${hex('transaction_hash')} AS path, count(*) AS n FROM token_transfers GROUP BY transaction_hash`,
  },
  {
    id: 'tx-transfers',
    title: 'token transfers of a transaction',
    deepPage: true,
    keys: `SELECT '/api/v2/transactions/' || ${hex('transaction_hash')} || '/token-transfers' AS path, count(*) AS n
           FROM token_transfers GROUP BY transaction_hash`,
  },
  {
    id: 'tx-internal',
    title: 'internal transactions of a transaction',
    deepPage: true,
    keys: `SELECT '/api/v2/transactions/' || ${hex('transaction_hash')} || '/internal-transactions' AS path, count(*) AS n
           FROM internal_transactions WHERE index > 0 OR type <> 'call' GROUP BY transaction_hash`,
  },
  {
    // Keyed by the transaction's token transfers, each one or two balances: the hot key's pages reach
    // the most ledger rows (its holders' transfers of later blocks are subtracted from their balances).
    id: 'tx-state-changes',
    title: 'state changes of a transaction',
    deepPage: true,
    keys: `SELECT '/api/v2/transactions/' || ${hex('transaction_hash')} || '/state-changes' AS path, count(*) AS n
           FROM token_transfers GROUP BY transaction_hash`,
  },
  {
    // No key: "hot" is the consensus chain, "cold" the few blocks that lost consensus.
    id: 'blocks',
    title: 'blocks',
    deepPage: true,
    keys: `SELECT '/api/v2/blocks' AS path, count(*) AS n FROM blocks WHERE consensus
           UNION ALL
           SELECT '/api/v2/blocks?type=reorg', count(*) FROM blocks WHERE NOT consensus`,
  },
  {
    id: 'block',
    title: 'a block',
    deepPage: false,
    keys: `SELECT '/api/v2/blocks/' || number::text AS path, transactions_count AS n FROM blocks WHERE consensus`,
  },
  {
    id: 'block-txs',
    title: 'transactions of a block',
    deepPage: true,
    keys: `SELECT '/api/v2/blocks/' || number::text || '/transactions' AS path, transactions_count AS n FROM blocks WHERE consensus`,
  },
  // The address page, keyed by the senders of transactions (each a key with some data behind it).
  {
    id: 'address',
    title: 'an address',
    deepPage: false,
    keys: `SELECT '/api/v2/addresses/' || ${hex('from_address')} AS path, 1 AS n FROM transactions GROUP BY from_address`,
  },
  {
    id: 'address-counters',
    title: 'counters of an address',
    deepPage: false,
    keys: `SELECT '/api/v2/addresses/' || ${hex('address')} || '/counters' AS path, 1 AS n FROM address_counters`,
  },
  {
    id: 'address-tabs-counters',
    title: 'tab counts of an address',
    deepPage: false,
    keys: `SELECT '/api/v2/addresses/' || ${hex('from_address')} || '/tabs-counters' AS path, 1 AS n FROM transactions GROUP BY from_address`,
  },
  {
    id: 'address-transactions',
    title: 'transactions of an address',
    deepPage: true,
    keys: `SELECT '/api/v2/addresses/' || ${hex('address')} || '/transactions' AS path, transactions_count AS n
           FROM address_counters WHERE transactions_count > 0`,
    coldFullPage: pageSize,
  },
  {
    // Keyed by the emitters: each log decoded with the emitter's ABI or a signature of the database.
    id: 'address-logs',
    title: 'logs of an address',
    deepPage: true,
    keys: `SELECT '/api/v2/addresses/' || ${hex('address')} || '/logs' AS path, count(*) AS n FROM logs GROUP BY address`,
    coldFullPage: pageSize,
  },
  // The home page's answers have no key: each is one path, hot and cold alike.
  {
    id: 'main-page-blocks',
    title: 'the newest blocks (home page)',
    deepPage: false,
    keys: `SELECT '/api/v2/main-page/blocks' AS path, 4 AS n`,
  },
  {
    id: 'main-page-transactions',
    title: 'the newest transactions (home page)',
    deepPage: false,
    keys: `SELECT '/api/v2/main-page/transactions' AS path, 6 AS n`,
  },
  {
    id: 'main-page-indexing-status',
    title: 'indexing status',
    deepPage: false,
    keys: `SELECT '/api/v2/main-page/indexing-status' AS path, 1 AS n`,
  },
  {
    id: 'stats',
    title: 'chain stats: totals, gas prices, utilisation, today',
    deepPage: false,
    keys: `SELECT '/api/v2/stats' AS path, 1 AS n`,
  },
  {
    id: 'transactions-stats',
    title: 'transactions of the last 24 hours and of the pool',
    deepPage: false,
    keys: `SELECT '/api/v2/transactions/stats' AS path, 1 AS n`,
  },
  {
    id: 'search',
    title: 'search for tokens by a prefix of their name or symbol',
    deepPage: true,
    keys: tokenSearchKeys('/api/v2/search'),
    coldFullPage: pageSize,
  },
  {
    id: 'search-quick',
    title: "the search box's quick search",
    deepPage: false,
    keys: tokenSearchKeys('/api/v2/search/quick'),
    coldFullPage: pageSize,
  },
  // The chain-wide lists: "hot" the whole list, "cold" the rarest filter (a token type, a search word).
  {
    id: 'tokens',
    title: 'tokens, most holders first',
    deepPage: true,
    keys: `SELECT '/api/v2/tokens' AS path, count(*) AS n FROM tokens
           UNION ALL
           SELECT '/api/v2/tokens?type=' || type, count(*) FROM tokens GROUP BY type
           UNION ALL
           SELECT path, n FROM (${tokenSearchKeys('/api/v2/tokens')}) w`,
  },
  {
    id: 'top-addresses',
    title: 'top accounts by coin balance',
    deepPage: true,
    keys: `SELECT '/api/v2/addresses' AS path, count(*) AS n FROM address_current_coin_balances WHERE value > 0 HAVING count(*) > 0`,
  },
  {
    id: 'all-token-transfers',
    title: 'every token transfer',
    deepPage: true,
    keys: `SELECT '/api/v2/token-transfers' AS path, count(*) AS n FROM token_transfers
           UNION ALL
           SELECT '/api/v2/token-transfers?type=' || token_type, count(*) FROM token_transfers GROUP BY token_type`,
  },
  {
    id: 'all-internal-transactions',
    title: 'every internal transaction',
    deepPage: true,
    keys: `SELECT '/api/v2/internal-transactions' AS path, count(*) AS n FROM internal_transactions WHERE index > 0 OR type <> 'call'`,
  },
  {
    id: 'all-withdrawals',
    title: 'every withdrawal',
    deepPage: true,
    keys: `SELECT '/api/v2/withdrawals' AS path, count(*) AS n FROM withdrawals HAVING count(*) > 0`,
  },
  // The Etherscan-style lists, 100 items a page: keyed by address as the pages of /api/v2 are.
  {
    id: 'etherscan-txlist',
    title: 'txlist: transactions of an address (Etherscan-style)',
    deepPage: true,
    keys: `SELECT '/api?module=account&action=txlist&address=' || ${hex('address')} || '&page=1&offset=${etherscanOffset}' AS path,
                  transactions_count AS n
           FROM address_counters WHERE transactions_count > 0`,
    coldFullPage: etherscanOffset,
    deepPath: etherscanDeepPage,
  },
  {
    id: 'etherscan-tokentx',
    title: 'tokentx: ERC-20 transfers of an address (Etherscan-style)',
    deepPage: true,
    keys: `SELECT '/api?module=account&action=tokentx&address=' || ${hex('a')} || '&page=1&offset=${etherscanOffset}' AS path, count(*) AS n
           FROM (SELECT from_address AS a FROM token_transfers WHERE token_type = 'ERC-20'
                 UNION ALL
                 SELECT to_address FROM token_transfers WHERE token_type = 'ERC-20') s
           GROUP BY a`,
    coldPath: (k) => `/api?module=account&action=tokentx&address=${k.coldAddress}&page=1&offset=${etherscanOffset}`,
    deepPath: etherscanDeepPage,
  },
  {
    id: 'etherscan-getlogs',
    title: 'getLogs: logs of a contract over the whole chain (Etherscan-style, up to 1,000)',
    deepPage: true,
    keys: `SELECT '/api?module=logs&action=getLogs&fromBlock=0&toBlock=latest&address=' || ${hex('address')} AS path, count(*) AS n
           FROM logs GROUP BY address`,
    coldFullPage: getLogsLimit,
    deepPath: logsDeepPage,
  },
  // The charts: none has a deep page.
  {
    id: 'address-balance-by-day',
    title: "an address's balance chart (coin-balance-history-by-day)",
    deepPage: false,
    keys: `SELECT '/api/v2/addresses/' || ${hex('address')} || '/coin-balance-history-by-day' AS path, count(*) AS n
           FROM address_coin_balances GROUP BY address`,
  },
  {
    // "hot" the whole chain by day, "cold" a year's resolution.
    id: 'stats-line',
    title: 'a line of the stats service (daily transactions)',
    deepPage: false,
    keys: `SELECT '/api/v1/lines/newTxns' AS path, count(*) AS n FROM daily_figures
           UNION ALL
           SELECT '/api/v1/lines/averageTxnFee?resolution=YEAR', 1`,
  },
  {
    id: 'stats-counters',
    title: "the stats service's counters",
    deepPage: false,
    keys: `SELECT '/api/v1/counters' AS path, 1 AS n`,
  },
  {
    id: 'stats-page-main',
    title: "the stats service's home page figures",
    deepPage: false,
    keys: `SELECT '/api/v1/pages/main' AS path, 1 AS n`,
  },
  {
    id: 'charts-transactions',
    title: "Blockscout's transactions chart (30 days)",
    deepPage: false,
    keys: `SELECT '/api/v2/stats/charts/transactions' AS path, 1 AS n`,
  },
];

export type KeyKind = 'hot' | 'cold';

export interface EndpointKey {
  kind: KeyKind;
  /** The first page's URL path and query. */
  path: string;
  /** How many items the key lists. */
  items: number;
}

/** The largest "handful": without a `coldPath`, a cold key lists at most this many items. */
const handful = 5;

/**
 * The hot key (most items) and the cold one of an endpoint, each with its item count; none when the
 * indexed data has nothing for it. The cold key is `coldPath`'s, or the fewest items of a full page
 * (`coldFullPage`), so that both first pages are full and differ only in how busy the key is; without
 * either, the most items up to a handful, else the fewest.
 */
export async function findKeys(db: Db, endpoint: Endpoint, keys: BenchKeys): Promise<EndpointKey[]> {
  const [cold, parameters] =
    endpoint.coldPath !== undefined
      ? ['WHERE path = $1', [endpoint.coldPath(keys)]]
      : endpoint.coldFullPage !== undefined
        ? [
            // Apart from the hot key; on a chain too short for a second full page, the key closest to one.
            `WHERE path <> (SELECT path FROM g ORDER BY n DESC, path LIMIT 1)
             ORDER BY n >= $1 DESC, CASE WHEN n >= $1 THEN n ELSE -n END, path LIMIT 1`,
            [endpoint.coldFullPage],
          ]
        : [`ORDER BY CASE WHEN n <= ${handful} THEN -n ELSE n END, path LIMIT 1`, []];
  const { rows } = await db.query<{ kind: KeyKind; path: string; n: string }>(
    `WITH g AS MATERIALIZED (${endpoint.keys})
     (SELECT 'hot' AS kind, path, n FROM g ORDER BY n DESC, path LIMIT 1)
     UNION ALL
     (SELECT 'cold', path, n FROM g ${cold})`,
    parameters,
  );
  return rows.map((r) => ({ kind: r.kind, path: r.path, items: Number(r.n) }));
}
