import { ConfigError } from './errors.js';
import { variants, type Variant } from './model.js';

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
  /** Null: E4 names no successor. */
  instanceTransfersSuccessorUrl: string | null;
  /** Where ipfs:// NFT metadata is fetched: <gateway>/<cid>/<path>. */
  ipfsGatewayUrl: string;
}

/** One setting: its environment variable, its CLI flag, and what it means. */
export interface Setting {
  env: string;
  flag: string;
  key: keyof Config;
  description: string;
}

export const settings: readonly Setting[] = [
  { env: 'ETHEREUM_JSONRPC_HTTP_URL', flag: 'rpc-url', key: 'rpcUrl', description: 'JSON-RPC HTTP URL of the node (unset: start the demo chain)' },
  { env: 'ETHEREUM_JSONRPC_TRACE_URL', flag: 'trace-url', key: 'traceUrl', description: 'JSON-RPC URL for trace calls (default: the node URL)' },
  { env: 'ETHEREUM_JSONRPC_WS_URL', flag: 'ws-url', key: 'wsUrl', description: 'JSON-RPC websocket URL of the node, for new heads as they come (unset: poll)' },
  { env: 'ETHEREUM_JSONRPC_VARIANT', flag: 'variant', key: 'variant', description: `node client: ${variants.join(', ')} (detected when unset)` },
  { env: 'DATABASE_URL', flag: 'database-url', key: 'databaseUrl', description: 'PostgreSQL URL (unset: embedded PostgreSQL in the data directory)' },
  { env: 'SEXTANT_DATA_DIR', flag: 'data-dir', key: 'dataDir', description: 'directory of the embedded PostgreSQL (default ./data)' },
  { env: 'PORT', flag: 'port', key: 'port', description: 'HTTP port of the API (default 4000)' },
  { env: 'HOST', flag: 'host', key: 'host', description: 'address the API listens on (default 0.0.0.0)' },
  { env: 'FIRST_BLOCK', flag: 'first-block', key: 'firstBlock', description: 'first block to index (default 0)' },
  { env: 'LAST_BLOCK', flag: 'last-block', key: 'lastBlock', description: 'last block to index, then keep serving (default: follow the head)' },
  { env: 'INDEXER_DISABLE_INTERNAL_TRANSACTIONS_FETCHER', flag: 'disable-internal-transactions', key: 'disableInternalTransactions', description: 'true: do not fetch traces' },
  { env: 'INDEXER_CATCHUP_BLOCKS_BATCH_SIZE', flag: 'batch-size', key: 'batchSize', description: 'blocks per node request batch (default 10)' },
  { env: 'INDEXER_CATCHUP_BLOCKS_CONCURRENCY', flag: 'concurrency', key: 'concurrency', description: 'batches fetched at once (default 4)' },
  { env: 'INDEXER_POLL_INTERVAL_MS', flag: 'poll-interval', key: 'pollIntervalMs', description: 'how often to ask the node for new blocks, in ms (default 1000)' },
  { env: 'INDEXER_MAX_REORG_DEPTH', flag: 'max-reorg-depth', key: 'maxReorgDepth', description: 'deepest reorg followed before stopping (default 128)' },
  { env: 'API_V2_INSTANCE_TRANSFERS_SUCCESSOR_URL', flag: 'instance-transfers-successor-url', key: 'instanceTransfersSuccessorUrl', description: 'successor URL in the Link header of the deprecated token instance transfers endpoint; {address_hash} and {id} are filled in (default: no Link header)' },
  { env: 'IPFS_GATEWAY_URL', flag: 'ipfs-gateway', key: 'ipfsGatewayUrl', description: 'IPFS gateway that ipfs:// NFT metadata is fetched through (default https://ipfs.io/ipfs)' },
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
    throw new ConfigError(`${describe(key)} is not a valid URL: "${value}"; expected e.g. ${protocols[0]}//host:port`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${describe(key)} must start with ${protocols.join(' or ')}, got "${value}"`);
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

function boolean(key: keyof Config, value: string | undefined): boolean {
  if (value === undefined) return false;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new ConfigError(`${describe(key)} must be true or false, got "${value}"`);
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
  const firstBlock = blockNumber('firstBlock', raw.firstBlock) ?? 0n;
  const lastBlock = blockNumber('lastBlock', raw.lastBlock);
  if (lastBlock !== null && lastBlock < firstBlock) {
    throw new ConfigError(`LAST_BLOCK (${lastBlock}) is below FIRST_BLOCK (${firstBlock}); set LAST_BLOCK >= FIRST_BLOCK`);
  }
  return {
    rpcUrl: url('rpcUrl', raw.rpcUrl, ['http:', 'https:']),
    traceUrl: url('traceUrl', raw.traceUrl, ['http:', 'https:']),
    wsUrl: url('wsUrl', raw.wsUrl, ['ws:', 'wss:']),
    variant: variant(raw.variant),
    databaseUrl: url('databaseUrl', raw.databaseUrl, ['postgres:', 'postgresql:']),
    dataDir: raw.dataDir ?? './data',
    port: integer('port', raw.port, 4000, 0, 65535),
    host: raw.host ?? '0.0.0.0',
    firstBlock,
    lastBlock,
    disableInternalTransactions: boolean('disableInternalTransactions', raw.disableInternalTransactions),
    batchSize: integer('batchSize', raw.batchSize, 10, 1, 1000),
    concurrency: integer('concurrency', raw.concurrency, 4, 1, 64),
    pollIntervalMs: integer('pollIntervalMs', raw.pollIntervalMs, 1000, 10, 3_600_000),
    maxReorgDepth: integer('maxReorgDepth', raw.maxReorgDepth, 128, 1, 100_000),
    instanceTransfersSuccessorUrl: url('instanceTransfersSuccessorUrl', raw.instanceTransfersSuccessorUrl, ['https:', 'http:']),
    ipfsGatewayUrl: url('ipfsGatewayUrl', raw.ipfsGatewayUrl, ['https:', 'http:']) ?? 'https://ipfs.io/ipfs',
  };
}
