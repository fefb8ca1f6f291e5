import { ConfigError, redactUrl, urlSecrets } from './errors.js';
import { type Address, variants, type Variant } from './model.js';

export interface Config {
  /** Null runs the demo chain. */
  rpcUrl: string | null;
  traceUrl: string | null;
  /** The node's websocket, for new heads; null polls. */
  wsUrl: string | null;
  variant: Variant | null;
  /** Null runs the embedded PostgreSQL in dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  port: number;
  host: string;
  firstBlock: bigint;
  lastBlock: bigint | null;
  disableInternalTransactions: boolean;
  batchSize: number;
  concurrency: number;
  pollIntervalMs: number;
  maxReorgDepth: number;
  /** Blocks at least this far below the node's head are loaded in bulk. */
  bulkLoadDistance: number;
  /** The fewest blocks loaded in bulk, into an empty database; 0: never. */
  bulkLoadMinBlocks: number;
  /** work_mem of each ledger step and maintenance_work_mem of each index build after a bulk load, in megabytes. */
  bulkLoadWorkMemMb: number;
  /** Steps of the switch after a bulk load run at once. */
  bulkLoadSwitchConcurrency: number;
  /** Null: E4 names no successor. */
  instanceTransfersSuccessorUrl: string | null;
  /** Where ipfs:// NFT metadata is fetched: <gateway>/<cid>/<path>. */
  ipfsGatewayUrl: string;
  /** pino's level name. */
  logLevel: string;
  /** How often the demo chain mines a block of new transactions after its scenario; 0: never. */
  demoBlockIntervalMs: number;
  /** The level of the one line each API request logs; silent: none. */
  requestLogLevel: RequestLogLevel;
  /** Blockscout's API_RATE_LIMIT_DISABLED; when false, each client IP may send rateLimitByIp requests per interval. */
  rateLimitDisabled: boolean;
  rateLimitByIp: number;
  /** Milliseconds (its setting is text in Blockscout's time format). */
  rateLimitByIpInterval: number;
  /** Client IPs the limit does not apply to. */
  rateLimitWhitelistedIps: string[];
  /** Connections of the indexer and its stages. */
  poolSize: number;
  /** Connections of the API, read-only. */
  apiPoolSize: number;
  /** Null: the API connects with databaseUrl (or to the embedded server). */
  databaseReadOnlyApiUrl: string | null;
  /** Null: verification jobs and results are written with databaseUrl. */
  databaseVerificationUrl: string | null;
  /** The longest an API query may run before it is cancelled (a 503). */
  apiStatementTimeoutMs: number;
  /** The longest an API request waits for a free connection before it is a 503. */
  apiPoolWaitMs: number;
  /** Above this mean event loop delay the API sheds load; null: never. */
  apiMaxEventLoopDelayMs: number | null;
  /** The longest an answer shared between the requests of one block is kept while no change comes; 0: none is shared. */
  apiSharedAnswersMaxAgeMs: number;
  /** Whether the API prepares its plan-stable statements on each connection. */
  apiPreparedStatements: boolean;
  /** Origins a browser may read the API from; null: any. */
  corsAllowedOrigins: string[] | null;
  /** Milliseconds between progress log lines, without a terminal. */
  progressIntervalMs: number;
  /** Base URL of the Solidity release list compilers are downloaded from; null: none is. */
  solcBinApiUrl: string | null;
  /** Where downloaded compilers are kept; null: `compilers` in dataDir. */
  compilersDir: string | null;
  /** The longest one compile of a verification may run, in milliseconds. */
  verificationTimeoutMs: number;
  /** The most memory one compile may take, in megabytes. */
  verificationMemoryMb: number;
  /** Compiles run at once by one process. */
  verificationConcurrency: number;
  /** Compiles waiting for their turn, beyond which a verification waits in the database's queue. */
  verificationQueue: number;
  /** Where prices come from; null: nowhere, every price field is null. */
  exchangeRatesSource: ExchangeRatesSource | null;
  /** The chain's coin at CoinGecko (e.g. ethereum); null: no coin price. */
  coinGeckoCoinId: string | null;
  /** The chain at CoinGecko (e.g. ethereum, polygon-pos), whose tokens are priced by contract address; null: no token prices. */
  coinGeckoPlatformId: string | null;
  coinGeckoApiKey: string | null;
  /** CoinGecko's API root: the public one, the Pro one with a key, or a stand-in. */
  coinGeckoBaseUrl: string;
  /** Milliseconds between two fetches of the prices. */
  exchangeRatesFetchIntervalMs: number;
  /** A token list (tokenlists.org's JSON) by http(s) URL or file; null: none. */
  tokenListUrl: string | null;
  /** Milliseconds between two reads of the token list. */
  tokenListRefetchIntervalMs: number;
  /** The ENS registry primary names are read from; null: mainnet's on chain 1, none elsewhere; 'none': none. */
  ensRegistryAddress: Address | 'none' | null;
  /** A claimed ENS name is checked again after this many milliseconds. */
  ensRefreshIntervalMs: number;
  /** The operator's file of address tags; null: none. */
  addressTagsFile: string | null;
}

export const exchangeRatesSources = ['coin_gecko'] as const;
export type ExchangeRatesSource = (typeof exchangeRatesSources)[number];

/** CoinGecko's public API, and its Pro API, which a key that is not a demo key needs. */
const coinGeckoPublicUrl = 'https://api.coingecko.com/api/v3';
const coinGeckoProUrl = 'https://pro-api.coingecko.com/api/v3';

export const requestLogLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type RequestLogLevel = (typeof requestLogLevels)[number];

/** Each setting's value when it is not given, where it has one: the one place these are written. */
const defaults = {
  dataDir: './data',
  port: 4000,
  host: '0.0.0.0',
  firstBlock: 0n,
  disableInternalTransactions: false,
  batchSize: 10,
  concurrency: 4,
  pollIntervalMs: 1000,
  maxReorgDepth: 128,
  bulkLoadDistance: 1_000,
  bulkLoadMinBlocks: 10_000,
  bulkLoadWorkMemMb: 512,
  bulkLoadSwitchConcurrency: 2,
  ipfsGatewayUrl: 'https://ipfs.io/ipfs',
  logLevel: 'info',
  poolSize: 10,
  apiPoolSize: 10,
  apiStatementTimeoutMs: 10_000,
  apiPoolWaitMs: 1_000,
  apiMaxEventLoopDelayMs: 500,
  apiSharedAnswersMaxAgeMs: 5_000,
  apiPreparedStatements: true,
  demoBlockIntervalMs: 5000,
  requestLogLevel: 'debug' as RequestLogLevel,
  // Off for the demo and a local explorer; Blockscout's own default is on.
  rateLimitDisabled: true,
  // Blockscout's defaults: 300 requests a minute per IP.
  rateLimitByIp: 300,
  rateLimitByIpInterval: '1m',
  progressIntervalMs: 5000,
  ensRefreshIntervalMs: '1d',
  solcBinApiUrl: 'https://binaries.soliditylang.org',
  verificationTimeoutMs: 120_000,
  verificationMemoryMb: 1024,
  verificationConcurrency: 1,
  verificationQueue: 8,
  exchangeRatesFetchIntervalMs: '10m',
  tokenListRefetchIntervalMs: '1h',
} satisfies Partial<Record<keyof Config, unknown>>;

const code = (value: string | number | bigint | boolean): string => `\`${value}\``;

/** A variable as the README's table and --help show it; `default` and `meaning` are Markdown. */
export interface EnvironmentSetting {
  env: string;
  /** When unset: the value, or what happens instead. */
  default: string;
  meaning: string;
}

/** A setting of Config: its environment variable and the command-line flag that overrides it. */
export interface Setting extends EnvironmentSetting {
  flag: string;
  key: keyof Config;
}

export const settings: readonly Setting[] = [
  { env: 'ETHEREUM_JSONRPC_HTTP_URL', flag: 'rpc-url', key: 'rpcUrl', default: 'the demo chain', meaning: 'JSON-RPC HTTP URL of the node' },
  {
    env: 'ETHEREUM_JSONRPC_TRACE_URL',
    flag: 'trace-url',
    key: 'traceUrl',
    default: 'the node URL',
    meaning: 'JSON-RPC URL used for traces',
  },
  {
    env: 'ETHEREUM_JSONRPC_WS_URL',
    flag: 'ws-url',
    key: 'wsUrl',
    default: "none (the demo chain's own)",
    meaning: "the node's websocket: new heads arrive by `eth_subscribe` instead of waiting for the next poll",
  },
  {
    env: 'ETHEREUM_JSONRPC_VARIANT',
    flag: 'variant',
    key: 'variant',
    default: 'detected',
    meaning: `the node's client: ${variants.slice(0, -1).map(code).join(', ')} or ${code(variants.at(-1)!)}`,
  },
  {
    env: 'DATABASE_URL',
    flag: 'database-url',
    key: 'databaseUrl',
    default: 'embedded',
    meaning: 'PostgreSQL URL; unset runs an embedded PostgreSQL',
  },
  {
    env: 'SEXTANT_DATA_DIR',
    flag: 'data-dir',
    key: 'dataDir',
    default: code(defaults.dataDir),
    meaning: 'where the embedded PostgreSQL keeps its data',
  },
  { env: 'PORT', flag: 'port', key: 'port', default: code(defaults.port), meaning: 'HTTP port of the API' },
  { env: 'HOST', flag: 'host', key: 'host', default: code(defaults.host), meaning: 'address the API listens on' },
  { env: 'FIRST_BLOCK', flag: 'first-block', key: 'firstBlock', default: code(defaults.firstBlock), meaning: 'first block to index' },
  {
    env: 'LAST_BLOCK',
    flag: 'last-block',
    key: 'lastBlock',
    default: 'the head, followed',
    meaning: 'index exactly up to this block, then keep serving',
  },
  {
    env: 'INDEXER_DISABLE_INTERNAL_TRANSACTIONS_FETCHER',
    flag: 'disable-internal-transactions',
    key: 'disableInternalTransactions',
    default: code(defaults.disableInternalTransactions),
    meaning: 'do not fetch traces',
  },
  {
    env: 'INDEXER_CATCHUP_BLOCKS_BATCH_SIZE',
    flag: 'batch-size',
    key: 'batchSize',
    default: code(defaults.batchSize),
    meaning: 'blocks per batch of node requests (halved while the node fails requests, grown back after)',
  },
  {
    env: 'INDEXER_CATCHUP_BLOCKS_CONCURRENCY',
    flag: 'concurrency',
    key: 'concurrency',
    default: code(defaults.concurrency),
    meaning: 'batches fetched at once',
  },
  {
    env: 'INDEXER_POLL_INTERVAL_MS',
    flag: 'poll-interval',
    key: 'pollIntervalMs',
    default: code(defaults.pollIntervalMs),
    meaning:
      "how often to look for new blocks, in milliseconds (with a websocket too, as a safety net), and how long the background stages rest when they find nothing to do (a new head stored ends the trace and coin balance stages' rest)",
  },
  {
    env: 'INDEXER_MAX_REORG_DEPTH',
    flag: 'max-reorg-depth',
    key: 'maxReorgDepth',
    default: code(defaults.maxReorgDepth),
    meaning: 'deepest reorg followed before stopping with an error',
  },
  {
    env: 'INDEXER_BULK_LOAD_DISTANCE',
    flag: 'bulk-load-distance',
    key: 'bulkLoadDistance',
    default: code(defaults.bulkLoadDistance),
    meaning: 'blocks at least this far below the head are loaded in bulk (more than `INDEXER_MAX_REORG_DEPTH`)',
  },
  {
    env: 'INDEXER_BULK_LOAD_MIN_BLOCKS',
    flag: 'bulk-load-min-blocks',
    key: 'bulkLoadMinBlocks',
    default: code(defaults.bulkLoadMinBlocks),
    meaning:
      'an empty database with at least this many blocks that far below the head loads them in bulk; `0`: never (a bulk load under way is finished all the same)',
  },
  {
    env: 'INDEXER_BULK_LOAD_WORK_MEM_MB',
    flag: 'bulk-load-work-mem-mb',
    key: 'bulkLoadWorkMemMb',
    default: code(defaults.bulkLoadWorkMemMb),
    meaning:
      "PostgreSQL's memory for each step of the switch after a bulk load, in MB: `work_mem` of a ledger step, `maintenance_work_mem` of an index build",
  },
  {
    env: 'INDEXER_BULK_LOAD_SWITCH_CONCURRENCY',
    flag: 'bulk-load-switch-concurrency',
    key: 'bulkLoadSwitchConcurrency',
    default: code(defaults.bulkLoadSwitchConcurrency),
    meaning: 'steps of the switch after a bulk load (ledger steps, index builds) run at once, each on a database connection of its own',
  },
  {
    env: 'IPFS_GATEWAY_URL',
    flag: 'ipfs-gateway',
    key: 'ipfsGatewayUrl',
    default: code(defaults.ipfsGatewayUrl),
    meaning: 'the gateway `ipfs://` NFT metadata is fetched through',
  },
  {
    env: 'API_V2_INSTANCE_TRANSFERS_SUCCESSOR_URL',
    flag: 'instance-transfers-successor-url',
    key: 'instanceTransfersSuccessorUrl',
    default: 'none',
    meaning:
      'the URL the deprecated E4 (transfers of one NFT) names as its successor in its `Link` header; `{address_hash}` and `{id}` are filled in',
  },
  {
    env: 'LOG_LEVEL',
    flag: 'log-level',
    key: 'logLevel',
    default: code(defaults.logLevel),
    meaning: 'how much is logged: `debug`, `info`, `warn` or `error`',
  },
  {
    env: 'SEXTANT_DEMO_BLOCK_INTERVAL_MS',
    flag: 'demo-block-interval',
    key: 'demoBlockIntervalMs',
    default: code(defaults.demoBlockIntervalMs),
    meaning:
      'on the demo chain, after its scenario: how often a block of new transactions (transfers, token transfers, contract calls) is mined, in milliseconds; `0` keeps the chain still, as `LAST_BLOCK` does',
  },
  {
    env: 'REQUEST_LOG_LEVEL',
    flag: 'request-log-level',
    key: 'requestLogLevel',
    default: code(defaults.requestLogLevel),
    meaning: `the level of the one line the API logs per request (method, URL, status, time): ${requestLogLevels
      .slice(0, -1)
      .map(code)
      .join(', ')}, or ${code('silent')} for none; written when \`LOG_LEVEL\` lets that level through`,
  },
  {
    env: 'API_RATE_LIMIT_DISABLED',
    flag: 'rate-limit-disabled',
    key: 'rateLimitDisabled',
    default: code(defaults.rateLimitDisabled),
    meaning: 'no rate limit; `false` limits each client IP to `API_RATE_LIMIT_BY_IP` requests per interval, a 429 beyond',
  },
  {
    env: 'API_RATE_LIMIT_BY_IP',
    flag: 'rate-limit-by-ip',
    key: 'rateLimitByIp',
    default: code(defaults.rateLimitByIp),
    meaning: 'requests one client IP may send per interval, when the rate limit is on',
  },
  {
    env: 'API_RATE_LIMIT_BY_IP_TIME_INTERVAL',
    flag: 'rate-limit-by-ip-time-interval',
    key: 'rateLimitByIpInterval',
    default: code(defaults.rateLimitByIpInterval),
    meaning: "the interval of `API_RATE_LIMIT_BY_IP`, in Blockscout's time format: `500ms`, `30s` (or `30`), `5m`, `1h`, `1d`",
  },
  {
    env: 'API_RATE_LIMIT_WHITELISTED_IPS',
    flag: 'rate-limit-whitelisted-ips',
    key: 'rateLimitWhitelistedIps',
    default: 'none',
    meaning: 'comma-separated client IPs the rate limit does not apply to',
  },
  {
    env: 'POOL_SIZE',
    flag: 'pool-size',
    key: 'poolSize',
    default: code(defaults.poolSize),
    meaning: 'database connections of the indexer and its stages',
  },
  {
    env: 'POOL_SIZE_API',
    flag: 'api-pool-size',
    key: 'apiPoolSize',
    default: code(defaults.apiPoolSize),
    meaning: "database connections of the API, apart from the indexer's and read-only (`default_transaction_read_only`)",
  },
  {
    env: 'DATABASE_READ_ONLY_API_URL',
    flag: 'database-read-only-api-url',
    key: 'databaseReadOnlyApiUrl',
    default: '`DATABASE_URL`',
    meaning:
      "PostgreSQL URL the API connects with, for a role that may only read (with `DATABASE_URL` only; the embedded database's API connections are read-only too)",
  },
  {
    env: 'DATABASE_VERIFICATION_URL',
    flag: 'database-verification-url',
    key: 'databaseVerificationUrl',
    default: '`DATABASE_URL`',
    meaning:
      'PostgreSQL URL, on the primary, that contract verification jobs and results are written with, for a role that may write the verification tables only (with `DATABASE_URL` only; see Contracts)',
  },
  {
    env: 'API_STATEMENT_TIMEOUT_MS',
    flag: 'api-statement-timeout',
    key: 'apiStatementTimeoutMs',
    default: code(defaults.apiStatementTimeoutMs),
    meaning: 'the longest an API query runs, in milliseconds, before it is cancelled and answered `503`',
  },
  {
    env: 'API_POOL_WAIT_MS',
    flag: 'api-pool-wait',
    key: 'apiPoolWaitMs',
    default: code(defaults.apiPoolWaitMs),
    meaning: 'the longest an API request waits for a free database connection, in milliseconds, before it is answered `503`',
  },
  {
    env: 'API_MAX_EVENT_LOOP_DELAY_MS',
    flag: 'api-max-event-loop-delay',
    key: 'apiMaxEventLoopDelayMs',
    default: code(defaults.apiMaxEventLoopDelayMs),
    meaning:
      'load shedding: while the mean event loop delay is above this, in milliseconds, every request is answered `503` at once (`0`: never)',
  },
  {
    env: 'API_SHARED_ANSWERS_MAX_AGE_MS',
    flag: 'api-shared-answers-max-age',
    key: 'apiSharedAnswersMaxAgeMs',
    default: code(defaults.apiSharedAnswersMaxAgeMs),
    meaning:
      'the longest, in milliseconds, an answer shared between the requests of one block is kept while no change comes (see "Shared answers"; `0`: none is shared)',
  },
  {
    env: 'API_PREPARED_STATEMENTS',
    flag: 'api-prepared-statements',
    key: 'apiPreparedStatements',
    default: code(defaults.apiPreparedStatements),
    meaning:
      'the API prepares the statements whose plan does not depend on their values (the lookups every page makes), planned once per connection instead of at every request; `false` behind a pooler in transaction mode that does not keep prepared statements (PgBouncer before 1.21, or without `max_prepared_statements`)',
  },
  {
    env: 'SEXTANT_CORS_ALLOWED_ORIGINS',
    flag: 'cors-allowed-origins',
    key: 'corsAllowedOrigins',
    default: 'any origin',
    meaning:
      'comma-separated origins (`https://explorer.example`) a browser may call the API from (CORS); others get no `Access-Control-Allow-Origin`',
  },
  {
    env: 'SEXTANT_PROGRESS_INTERVAL_MS',
    flag: 'progress-interval',
    key: 'progressIntervalMs',
    default: code(defaults.progressIntervalMs),
    meaning:
      "without a terminal, how often a log line gives the catch-up's and the trace stage's progress (blocks done, blocks and transactions per second, time left), in milliseconds, while they have work left; on a terminal, progress bars show it",
  },
  {
    env: 'ENS_REGISTRY_ADDRESS',
    flag: 'ens-registry-address',
    key: 'ensRegistryAddress',
    default: "mainnet's registry (`0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e`) on chain 1; none elsewhere",
    meaning:
      'the ENS registry (or a compatible one) the primary names of addresses are read from, in the background (see Names and tags); `none`: no names are read',
  },
  {
    env: 'ENS_REFRESH_INTERVAL',
    flag: 'ens-refresh-interval',
    key: 'ensRefreshIntervalMs',
    default: code(defaults.ensRefreshIntervalMs),
    meaning:
      "how long an address's primary name (or a reverse record whose name does not resolve back) is kept before it is read again, in Blockscout's time format (`30m`, `12h`, `1d`); ENS events read it again at once",
  },
  {
    env: 'ADDRESS_TAGS_FILE',
    flag: 'address-tags-file',
    key: 'addressTagsFile',
    default: 'none',
    meaning:
      "a JSON file of address tags (see Names and tags), shown in addresses' `public_tags` and `metadata`; read at start and again whenever it changes",
  },
  {
    env: 'SOLC_BIN_API_URL',
    flag: 'solc-bin-api-url',
    key: 'solcBinApiUrl',
    default: code(defaults.solcBinApiUrl),
    meaning:
      'where Solidity compilers other than the bundled one are downloaded from, on first use: its `bin/list.json` and the builds it lists; `none`: no download, only the bundled compiler and those already in `SEXTANT_COMPILERS_DIR`',
  },
  {
    env: 'SEXTANT_COMPILERS_DIR',
    flag: 'compilers-dir',
    key: 'compilersDir',
    default: '`compilers` in `SEXTANT_DATA_DIR`',
    meaning:
      'where downloaded compilers are kept (`soljson-v<version>+commit.<hash>.js`, as the release list names them): a build put there by hand is used without a download',
  },
  {
    env: 'SEXTANT_VERIFICATION_TIMEOUT_MS',
    flag: 'verification-timeout',
    key: 'verificationTimeoutMs',
    default: code(defaults.verificationTimeoutMs),
    meaning: 'the longest one compile of a contract verification runs, in milliseconds, before it is stopped and the verification fails',
  },
  {
    env: 'SEXTANT_VERIFICATION_MEMORY_MB',
    flag: 'verification-memory',
    key: 'verificationMemoryMb',
    default: code(defaults.verificationMemoryMb),
    meaning: 'the most memory one compile may take, in MB, before it is stopped and the verification fails',
  },
  {
    env: 'SEXTANT_VERIFICATION_CONCURRENCY',
    flag: 'verification-concurrency',
    key: 'verificationConcurrency',
    default: code(defaults.verificationConcurrency),
    meaning: 'compiles one process runs at once, each in a process of its own',
  },
  {
    env: 'SEXTANT_VERIFICATION_QUEUE',
    flag: 'verification-queue',
    key: 'verificationQueue',
    default: code(defaults.verificationQueue),
    meaning: "compiles that may wait for their turn in one process; further verifications wait in the database's queue",
  },
  {
    env: 'EXCHANGE_RATES_SOURCE',
    flag: 'exchange-rates-source',
    key: 'exchangeRatesSource',
    default: '`coin_gecko` when a CoinGecko coin or platform id is set, else none',
    meaning: "where the coin's and tokens' prices come from (`coin_gecko`); with none, every price, market cap and coin image is null",
  },
  {
    env: 'EXCHANGE_RATES_COINGECKO_COIN_ID',
    flag: 'coingecko-coin-id',
    key: 'coinGeckoCoinId',
    default: 'none',
    meaning: "CoinGecko's id of the chain's coin (e.g. `ethereum`): its price, 24 h change, market cap and image",
  },
  {
    env: 'EXCHANGE_RATES_COINGECKO_PLATFORM_ID',
    flag: 'coingecko-platform-id',
    key: 'coinGeckoPlatformId',
    default: 'none',
    meaning:
      "CoinGecko's id of the chain as a platform (e.g. `ethereum`, `polygon-pos`): the prices, market caps, volumes and icons of the indexed tokens it lists by contract address",
  },
  {
    env: 'EXCHANGE_RATES_COINGECKO_API_KEY',
    flag: 'coingecko-api-key',
    key: 'coinGeckoApiKey',
    default: 'none',
    meaning: 'a CoinGecko API key: sent as a demo key to `api.coingecko.com`, as a Pro key anywhere else',
  },
  {
    env: 'EXCHANGE_RATES_COINGECKO_BASE_URL',
    flag: 'coingecko-base-url',
    key: 'coinGeckoBaseUrl',
    default: `\`${coinGeckoPublicUrl}\`, \`${coinGeckoProUrl}\` with an API key`,
    meaning: "CoinGecko's API root, or a proxy or stand-in answering as it does",
  },
  {
    env: 'EXCHANGE_RATES_FETCH_INTERVAL',
    flag: 'exchange-rates-fetch-interval',
    key: 'exchangeRatesFetchIntervalMs',
    default: code(defaults.exchangeRatesFetchIntervalMs),
    meaning: 'time between two fetches of the prices (e.g. `30s`, `10m`, `1h`); after a failure, sooner, backing off',
  },
  {
    env: 'TOKEN_LIST_URL',
    flag: 'token-list-url',
    key: 'tokenListUrl',
    default: 'none',
    meaning:
      "a token list in tokenlists.org's JSON format, by `http(s)` URL or file path: the icons (`logoURI`) of this chain's tokens, and names, symbols and decimals their contracts do not answer",
  },
  {
    env: 'TOKEN_LIST_REFETCH_INTERVAL',
    flag: 'token-list-refetch-interval',
    key: 'tokenListRefetchIntervalMs',
    default: code(defaults.tokenListRefetchIntervalMs),
    meaning: 'time between two reads of the token list',
  },
];

/**
 * Variables read where they are used, not through Config: ANVIL_BIN by the demo's anvil, which the
 * tests and benchmarks start too; SEXTANT_DEBUG by the command line, also when the configuration is
 * what failed.
 */
export const environmentSettings: readonly EnvironmentSetting[] = [
  { env: 'ANVIL_BIN', default: 'the bundled one', meaning: 'the anvil binary the demo chain runs' },
  { env: 'SEXTANT_DEBUG', default: 'unset', meaning: 'any value: a failure prints its stack trace after its one line' },
];

/** The settings that are URLs, which may hold a password. */
const urlKeys = [
  'rpcUrl',
  'traceUrl',
  'wsUrl',
  'databaseUrl',
  'databaseReadOnlyApiUrl',
  'databaseVerificationUrl',
  'instanceTransfersSuccessorUrl',
  'ipfsGatewayUrl',
  'solcBinApiUrl',
  'coinGeckoBaseUrl',
] as const satisfies readonly (keyof Config)[];

/** The passwords the URL settings hold, whatever their shape: what no output may show (see redact). */
export const settingSecrets = (raw: RawSettings): string[] => [
  ...urlKeys.flatMap((key) => (raw[key] === undefined ? [] : urlSecrets(raw[key]))),
  ...(raw.coinGeckoApiKey === undefined ? [] : [raw.coinGeckoApiKey]),
];

/** Raw values, by Config key, from flags (taking precedence) and the environment. */
export type RawSettings = Partial<Record<keyof Config, string>>;

export function rawSettingsFromEnv(env: NodeJS.ProcessEnv): RawSettings {
  const raw: RawSettings = {};
  for (const s of settings) {
    const value = env[s.env];
    if (value !== undefined && value !== '') raw[s.key] = value;
  }
  return raw;
}

function describe(key: keyof Config): string {
  const s = settings.find((x) => x.key === key)!;
  return `${s.env} (--${s.flag})`;
}

function url(key: keyof Config, value: string | undefined, protocols: string[]): string | null {
  if (value === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${describe(key)} is not a valid URL: "${redactUrl(value)}"; expected e.g. ${protocols[0]}//host:port`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${describe(key)} must start with ${protocols.join(' or ')}, got "${redactUrl(value)}"`);
  }
  return value;
}

function integer(key: keyof Config, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${describe(key)} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}

function blockNumber(key: keyof Config, value: string | undefined): bigint | null {
  if (value === undefined) return null;
  if (!/^\d+$/.test(value)) throw new ConfigError(`${describe(key)} must be a block number (0 or more), got "${value}"`);
  return BigInt(value);
}

function boolean(key: keyof Config, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new ConfigError(`${describe(key)} must be true or false, got "${value}"`);
}

const timeUnitsMs: Record<string, number> = { ms: 1, s: 1000, '': 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Blockscout's time format: a whole number and a unit (ms, s, m, h, d); a bare number is seconds. */
function duration(key: keyof Config, value: string): number {
  const match = /^([0-9]{1,9})(ms|s|m|h|d|)$/.exec(value);
  const ms = match === null ? 0 : Number(match[1]) * timeUnitsMs[match[2]!]!;
  if (ms === 0) throw new ConfigError(`${describe(key)} must be a time such as 500ms, 30s, 5m, 1h or 1d (more than 0), got "${value}"`);
  return ms;
}

function choice<T extends string>(key: keyof Config, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`${describe(key)} must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

const list = (value: string | undefined): string[] => (value ?? '').split(',').flatMap((item) => (item.trim() === '' ? [] : [item.trim()]));

/** A comma-separated list of origins, each a scheme, host and optional port, as a browser sends it. */
function origins(value: string | undefined): string[] | null {
  if (value === undefined) return null;
  return list(value).map((origin) => {
    const parsed = URL.canParse(origin) ? new URL(origin) : null;
    if (parsed === null || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(`${describe('corsAllowedOrigins')}: "${origin}" is not an origin; expected e.g. https://explorer.example`);
    }
    return origin;
  });
}

/**
 * The price source: as set, else CoinGecko when one of its ids is set (Blockscout's default source);
 * an unsupported one, or CoinGecko without anything to fetch, is refused.
 */
function exchangeRatesSource(raw: RawSettings): ExchangeRatesSource | null {
  const coinGeckoIds = raw.coinGeckoCoinId !== undefined || raw.coinGeckoPlatformId !== undefined;
  if (raw.exchangeRatesSource === undefined) return coinGeckoIds ? 'coin_gecko' : null;
  if (!(exchangeRatesSources as readonly string[]).includes(raw.exchangeRatesSource)) {
    throw new ConfigError(
      `${describe('exchangeRatesSource')} "${raw.exchangeRatesSource}" is not supported; the supported sources are ${exchangeRatesSources.join(', ')}`,
    );
  }
  if (!coinGeckoIds) {
    throw new ConfigError(
      `${describe('exchangeRatesSource')} is coin_gecko but nothing is to be fetched: set ${describe('coinGeckoCoinId')} or ${describe('coinGeckoPlatformId')}`,
    );
  }
  return raw.exchangeRatesSource as ExchangeRatesSource;
}

/** A token list: an http(s) URL, a file: URL or a path. */
function tokenListSource(value: string | undefined): string | null {
  if (value === undefined) return null;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !/^file:/i.test(value) ? url('tokenListUrl', value, ['https:', 'http:']) : value;
}

function ensRegistryAddress(value: string | undefined): Address | 'none' | null {
  if (value === undefined || value === 'none') return value ?? null;
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
    throw new ConfigError(`${describe('ensRegistryAddress')} must be an address (0x and 40 hex digits) or none, got "${value}"`);
  }
  return value.toLowerCase() as Address;
}

function variant(value: string | undefined): Variant | null {
  if (value === undefined) return null;
  const v = value.toLowerCase();
  if (!(variants as readonly string[]).includes(v)) {
    throw new ConfigError(`${describe('variant')} must be one of ${variants.join(', ')}, got "${value}"`);
  }
  return v as Variant;
}

export function parseConfig(raw: RawSettings): Config {
  const firstBlock = blockNumber('firstBlock', raw.firstBlock) ?? defaults.firstBlock;
  const lastBlock = blockNumber('lastBlock', raw.lastBlock);
  if (lastBlock !== null && lastBlock < firstBlock) {
    throw new ConfigError(`LAST_BLOCK (${lastBlock}) is below FIRST_BLOCK (${firstBlock}); set LAST_BLOCK >= FIRST_BLOCK`);
  }
  const databaseUrl = url('databaseUrl', raw.databaseUrl, ['postgres:', 'postgresql:']);
  const databaseReadOnlyApiUrl = url('databaseReadOnlyApiUrl', raw.databaseReadOnlyApiUrl, ['postgres:', 'postgresql:']);
  if (databaseReadOnlyApiUrl !== null && databaseUrl === null) {
    throw new ConfigError('DATABASE_READ_ONLY_API_URL needs DATABASE_URL: the embedded database has no other role; set both or neither');
  }
  const databaseVerificationUrl = url('databaseVerificationUrl', raw.databaseVerificationUrl, ['postgres:', 'postgresql:']);
  if (databaseVerificationUrl !== null && databaseUrl === null) {
    throw new ConfigError('DATABASE_VERIFICATION_URL needs DATABASE_URL: the embedded database has no other role; set both or neither');
  }
  const maxReorgDepth = integer('maxReorgDepth', raw.maxReorgDepth, defaults.maxReorgDepth, 1, 100_000);
  const bulkLoadDistance = integer('bulkLoadDistance', raw.bulkLoadDistance, defaults.bulkLoadDistance, 1, 1_000_000_000);
  if (bulkLoadDistance <= maxReorgDepth) {
    throw new ConfigError(
      `INDEXER_BULK_LOAD_DISTANCE (${bulkLoadDistance}) must exceed INDEXER_MAX_REORG_DEPTH (${maxReorgDepth}): blocks loaded in bulk are past any reorg followed`,
    );
  }
  return {
    rpcUrl: url('rpcUrl', raw.rpcUrl, ['http:', 'https:']),
    traceUrl: url('traceUrl', raw.traceUrl, ['http:', 'https:']),
    wsUrl: url('wsUrl', raw.wsUrl, ['ws:', 'wss:']),
    variant: variant(raw.variant),
    databaseUrl,
    dataDir: raw.dataDir ?? defaults.dataDir,
    port: integer('port', raw.port, defaults.port, 0, 65535),
    host: raw.host ?? defaults.host,
    firstBlock,
    lastBlock,
    disableInternalTransactions: boolean(
      'disableInternalTransactions',
      raw.disableInternalTransactions,
      defaults.disableInternalTransactions,
    ),
    batchSize: integer('batchSize', raw.batchSize, defaults.batchSize, 1, 1000),
    concurrency: integer('concurrency', raw.concurrency, defaults.concurrency, 1, 64),
    pollIntervalMs: integer('pollIntervalMs', raw.pollIntervalMs, defaults.pollIntervalMs, 10, 3_600_000),
    maxReorgDepth,
    bulkLoadDistance,
    bulkLoadMinBlocks: integer('bulkLoadMinBlocks', raw.bulkLoadMinBlocks, defaults.bulkLoadMinBlocks, 0, 1_000_000_000),
    bulkLoadWorkMemMb: integer('bulkLoadWorkMemMb', raw.bulkLoadWorkMemMb, defaults.bulkLoadWorkMemMb, 1, 1_000_000),
    bulkLoadSwitchConcurrency: integer(
      'bulkLoadSwitchConcurrency',
      raw.bulkLoadSwitchConcurrency,
      defaults.bulkLoadSwitchConcurrency,
      1,
      64,
    ),
    instanceTransfersSuccessorUrl: url('instanceTransfersSuccessorUrl', raw.instanceTransfersSuccessorUrl, ['https:', 'http:']),
    ipfsGatewayUrl: url('ipfsGatewayUrl', raw.ipfsGatewayUrl, ['https:', 'http:']) ?? defaults.ipfsGatewayUrl,
    logLevel: raw.logLevel ?? defaults.logLevel,
    demoBlockIntervalMs: integer('demoBlockIntervalMs', raw.demoBlockIntervalMs, defaults.demoBlockIntervalMs, 0, 3_600_000),
    requestLogLevel: choice('requestLogLevel', raw.requestLogLevel, requestLogLevels, defaults.requestLogLevel),
    rateLimitDisabled: boolean('rateLimitDisabled', raw.rateLimitDisabled, defaults.rateLimitDisabled),
    rateLimitByIp: integer('rateLimitByIp', raw.rateLimitByIp, defaults.rateLimitByIp, 1, 1_000_000_000),
    rateLimitByIpInterval: duration('rateLimitByIpInterval', raw.rateLimitByIpInterval ?? defaults.rateLimitByIpInterval),
    rateLimitWhitelistedIps: list(raw.rateLimitWhitelistedIps),
    poolSize: integer('poolSize', raw.poolSize, defaults.poolSize, 1, 1000),
    apiPoolSize: integer('apiPoolSize', raw.apiPoolSize, defaults.apiPoolSize, 1, 1000),
    databaseReadOnlyApiUrl,
    databaseVerificationUrl,
    apiStatementTimeoutMs: integer('apiStatementTimeoutMs', raw.apiStatementTimeoutMs, defaults.apiStatementTimeoutMs, 1, 3_600_000),
    apiPoolWaitMs: integer('apiPoolWaitMs', raw.apiPoolWaitMs, defaults.apiPoolWaitMs, 1, 600_000),
    apiMaxEventLoopDelayMs:
      integer('apiMaxEventLoopDelayMs', raw.apiMaxEventLoopDelayMs, defaults.apiMaxEventLoopDelayMs, 0, 60_000) || null,
    apiSharedAnswersMaxAgeMs: integer(
      'apiSharedAnswersMaxAgeMs',
      raw.apiSharedAnswersMaxAgeMs,
      defaults.apiSharedAnswersMaxAgeMs,
      0,
      3_600_000,
    ),
    apiPreparedStatements: boolean('apiPreparedStatements', raw.apiPreparedStatements, defaults.apiPreparedStatements),
    corsAllowedOrigins: origins(raw.corsAllowedOrigins),
    progressIntervalMs: integer('progressIntervalMs', raw.progressIntervalMs, defaults.progressIntervalMs, 100, 3_600_000),
    solcBinApiUrl:
      raw.solcBinApiUrl === 'none' ? null : (url('solcBinApiUrl', raw.solcBinApiUrl, ['https:', 'http:']) ?? defaults.solcBinApiUrl),
    compilersDir: raw.compilersDir ?? null,
    verificationTimeoutMs: integer('verificationTimeoutMs', raw.verificationTimeoutMs, defaults.verificationTimeoutMs, 1000, 3_600_000),
    verificationMemoryMb: integer('verificationMemoryMb', raw.verificationMemoryMb, defaults.verificationMemoryMb, 64, 1_000_000),
    verificationConcurrency: integer('verificationConcurrency', raw.verificationConcurrency, defaults.verificationConcurrency, 1, 64),
    verificationQueue: integer('verificationQueue', raw.verificationQueue, defaults.verificationQueue, 0, 10_000),
    exchangeRatesSource: exchangeRatesSource(raw),
    coinGeckoCoinId: raw.coinGeckoCoinId ?? null,
    coinGeckoPlatformId: raw.coinGeckoPlatformId ?? null,
    coinGeckoApiKey: raw.coinGeckoApiKey ?? null,
    coinGeckoBaseUrl:
      url('coinGeckoBaseUrl', raw.coinGeckoBaseUrl, ['https:', 'http:']) ??
      (raw.coinGeckoApiKey === undefined ? coinGeckoPublicUrl : coinGeckoProUrl),
    exchangeRatesFetchIntervalMs: duration(
      'exchangeRatesFetchIntervalMs',
      raw.exchangeRatesFetchIntervalMs ?? defaults.exchangeRatesFetchIntervalMs,
    ),
    tokenListUrl: tokenListSource(raw.tokenListUrl),
    tokenListRefetchIntervalMs: duration(
      'tokenListRefetchIntervalMs',
      raw.tokenListRefetchIntervalMs ?? defaults.tokenListRefetchIntervalMs,
    ),
    ensRegistryAddress: ensRegistryAddress(raw.ensRegistryAddress),
    ensRefreshIntervalMs: duration('ensRefreshIntervalMs', raw.ensRefreshIntervalMs ?? defaults.ensRefreshIntervalMs),
    addressTagsFile: raw.addressTagsFile ?? null,
  };
}
