import type { Logger } from 'pino';
import { createRpcClient } from '../chain/rpc.js';
import type { Config } from '../config.js';
import type { IndexingProgress } from '../model.js';
import { ConfigError } from '../errors.js';
import type { BackgroundLoop, WakeableLoop } from '../indexer/stages/background-loop.js';
import { startIndexer, type Indexer } from '../indexer/blocks/indexer.js';
import { startCoinBalanceStage } from '../indexer/stages/coin-balance-stage.js';
import { startListCheckpointStage } from '../indexer/stages/list-checkpoint-stage.js';
import { startContractCodeStage } from '../indexer/stages/contract-code-stage.js';
import { startProxyStage } from '../indexer/stages/proxy-stage.js';
import { startEnsStage } from '../indexer/stages/ens-stage.js';
import { MAINNET_ENS_REGISTRY } from '../chain/ens.js';
import { startNftMetadataStage } from '../indexer/stages/nft-metadata-stage.js';
import { startPendingStage } from '../indexer/stages/pending-stage.js';
import { startTokenMetadataStage } from '../indexer/stages/token-metadata-stage.js';
import { startTraceStage, type TraceStage } from '../indexer/stages/trace-stage.js';
import { createRetry } from '../indexer/retry.js';
import { migrate } from '../store/migrate.js';
import { findNewestBlock } from '../store/read/blocks.js';
import { bulkLoadSwitching, bulkLoadUnderWay } from '../store/read/bulk-load.js';
import type { ScenarioResult } from '../demo/scenario.js';
import { verifyDemoContracts } from '../demo/verify-contracts.js';
import { ensureSameChain } from './chain-identity.js';
import { openDatabase, type Database } from './database.js';
import { connectNode, type NodeConnection } from './node.js';
import { startOffchainSources } from './offchain-sources.js';
import { ProgressMeter } from './progress.js';
import { loadSignatureDatabase } from './signature-database.js';
import { startProgressDisplay } from './progress-display.js';
import { onShutdownSignal, Resources } from './resources.js';
import { listen, printTryUrls } from './serve.js';

async function openMigratedDatabase(config: Config, logger: Logger, resources: Resources): Promise<Database> {
  const database = await openDatabase(config, logger);
  resources.add(() => database.close());
  try {
    const applied = await migrate(database.pool);
    if (applied.length > 0) logger.info(`database migrated: ${applied.join(', ')}`);
  } catch (error) {
    throw new ConfigError(`cannot migrate the database: ${(error as Error).message}; check that its user may create tables`);
  }
  return database;
}

interface Indexing {
  node: NodeConnection;
  indexer: Indexer;
  /** Null when INDEXER_DISABLE_INTERNAL_TRANSACTIONS_FETCHER turns tracing off. */
  traceStage: TraceStage | null;
  /** Token contracts, then NFT metadata. */
  tokenStages: BackgroundLoop[];
  /** Native coin balances of the addresses the indexed blocks touch, and the code of their contracts. */
  balanceStages: [coinBalances: WakeableLoop, contractCode: BackgroundLoop];
  /** Proxies among the contracts, checked again on an upgrade, a delegation or a reorg. */
  proxyStage: BackgroundLoop;
  /** Rejects with the first fatal error that ends the indexer or a stage, or the database for good; never resolves. */
  failed: Promise<never>;
  /** The catch-up's and the trace stage's pace, as the progress display shows it. */
  progress: IndexingProgress;
}

function firstFailure(parts: { done: Promise<void> }[]): Promise<never> {
  const failed = Promise.race(parts.map(({ done }) => done.then(() => new Promise<never>(() => undefined))));
  // Until a command awaits it (`start` does once the API listens), a failure is not an unhandled one.
  failed.catch(() => undefined);
  return failed;
}

async function startIndexing(config: Config, logger: Logger, database: Database, resources: Resources): Promise<Indexing> {
  // The writes made once at start are tried again while the database is away, as the indexer's are, until shutdown.
  const stopping = new AbortController();
  const retry = createRetry({ logger, signal: stopping.signal });
  // Beside the indexing: no block needs it. A load cut short is rolled back; one whose commit went unheard is found done.
  const signaturesLoaded = retry('loading the signature database', () => loadSignatureDatabase(database.pool, logger)).catch(
    (error: Error) => {
      if (!stopping.signal.aborted) logger.warn(`signature database not loaded: ${error.message}`);
    },
  );
  resources.add(() => signaturesLoaded);
  resources.add(async () => stopping.abort());
  const node = await connectNode(config, logger);
  resources.add(() => node.close());
  await ensureSameChain(database.pool, node.client, node.capabilities.chainId, { demo: node.demo !== null, logger });
  // Before the indexer: nothing may be awaited between its start and the watch on its failures below.
  const offchainStages = await startOffchainSources(config, logger, database, node.capabilities.chainId, resources, retry);
  // The stages that finish what a new head shows on its pages (its internal transactions and rewards, the
  // balances of the addresses it touched) start on it at once, not at their next poll; the others (code,
  // tokens, NFTs, proxies) keep their rest, which batches their work.
  let wokenByBlocks: WakeableLoop[] = [];
  const indexer = startIndexer({
    onHeadsStored: () => {
      for (const stage of wokenByBlocks) stage.wake();
    },
    pool: database.pool,
    client: node.client,
    capabilities: node.capabilities,
    logger: logger.child({ component: 'indexer' }),
    firstBlock: config.firstBlock,
    lastBlock: config.lastBlock,
    batchSize: config.batchSize,
    concurrency: config.concurrency,
    pollIntervalMs: config.pollIntervalMs,
    maxReorgDepth: config.maxReorgDepth,
    wsUrl: node.wsUrl,
    bulkLoad: {
      settings: {
        distance: config.bulkLoadDistance,
        minBlocks: config.bulkLoadMinBlocks,
        workMem: `${config.bulkLoadWorkMemMb}MB`,
        switchConcurrency: config.bulkLoadSwitchConcurrency,
      },
      traces: config.disableInternalTransactions ? null : { client: traceClient(config, node), method: node.capabilities.traceMethod },
    },
  });
  resources.add(() => indexer.stop());
  const traceStage = config.disableInternalTransactions ? null : startTracing(config, logger, database, node, resources);
  const tokenStages = startReadingTokens(config, logger, database, node, resources);
  const balanceStages = startReadingState(config, logger, database, node, resources);
  const proxyStage = startReadingProxies(config, logger, database, node, resources);
  const nameStages = startReadingNames(config, logger, database, node, resources);
  const checkpointStage = startListCheckpoints(config, logger, database, resources);
  wokenByBlocks = [...(traceStage === null ? [] : [traceStage]), balanceStages[0]];
  const parts = [
    indexer,
    checkpointStage,
    ...tokenStages,
    ...balanceStages,
    proxyStage,
    ...offchainStages,
    ...nameStages,
    ...(traceStage === null ? [] : [traceStage]),
  ];
  // The pool belongs to the head: an index that stops at LAST_BLOCK does not list it.
  if (config.lastBlock === null) {
    const pendingStage = startPendingStage({
      pool: database.pool,
      client: node.client,
      logger: logger.child({ component: 'pending' }),
      pollIntervalMs: config.pollIntervalMs,
    });
    resources.add(() => pendingStage.stop());
    parts.push(pendingStage);
  }
  const progress = showProgress(config, logger, database, indexer, traceStage, resources);
  const failed = Promise.race([firstFailure(parts), database.failed]);
  failed.catch(() => undefined);
  return { node, indexer, traceStage, tokenStages, balanceStages, proxyStage, failed, progress };
}

/** Progress bars on a terminal, log lines elsewhere; the figures they show, for GET /health. */
function showProgress(
  config: Config,
  logger: Logger,
  database: Database,
  indexer: Indexer,
  traceStage: TraceStage | null,
  resources: Resources,
): IndexingProgress {
  const meter = new ProgressMeter({
    pool: database.pool,
    status: indexer.status,
    tracedBlocks: traceStage?.tracedBlocks ?? null,
    firstBlock: config.firstBlock,
  });
  const display = startProgressDisplay({
    meter,
    logger: logger.child({ component: 'progress' }),
    terminal: process.stderr.isTTY === true,
    intervalMs: config.progressIntervalMs,
  });
  resources.add(() => display.stop());
  return meter.progress;
}

/**
 * Tokens or NFT ids read at once: one Multicall3 call (or JSON-RPC batch) and one save for each
 * batch, whatever the block batch size, since a round per few ids costs more than the reads.
 */
const TOKEN_READ_BATCH_SIZE = 100;

/**
 * Token contracts and NFT metadata are read beside the indexer, with short timeouts. Without Multicall3
 * a round's eth_calls go in JSON-RPC batches of a round's size: their answers are small (a name, a
 * URI), far below the size nodes cap a batch answer at, and each HTTP request costs both sides more
 * than the calls in it.
 */
function startReadingTokens(
  config: Config,
  logger: Logger,
  database: Database,
  node: NodeConnection,
  resources: Resources,
): BackgroundLoop[] {
  const client = createRpcClient({
    url: node.client.url,
    timeoutMs: 5_000,
    retryCount: 1,
    batchSize: TOKEN_READ_BATCH_SIZE,
    errors: node.errors,
  });
  const tokenStage = startTokenMetadataStage({
    pool: database.pool,
    client,
    logger: logger.child({ component: 'tokens' }),
    batchSize: TOKEN_READ_BATCH_SIZE,
    pollIntervalMs: config.pollIntervalMs,
    // During a bulk load's switch only: it reads the names of the tokens the load writes meanwhile.
    heldBack: () => bulkLoadSwitching(database.pool),
  });
  resources.add(() => tokenStage.stop());
  const nftStage = startNftMetadataStage({
    pool: database.pool,
    client,
    logger: logger.child({ component: 'nft-metadata' }),
    fetch: { ipfsGateway: config.ipfsGatewayUrl, timeoutMs: 10_000, maxBytes: 1024 * 1024, retries: 2 },
    batchSize: TOKEN_READ_BATCH_SIZE,
    pollIntervalMs: config.pollIntervalMs,
    heldBack: () => bulkLoadUnderWay(database.pool),
  });
  resources.add(() => nftStage.stop());
  return [tokenStage, nftStage];
}

/** Addresses whose balance or code is read at once: one JSON-RPC batch and one save. */
const STATE_READ_BATCH_SIZE = 100;

/** Native coin balances and contract code, read beside the indexer at the indexed head. */
function startReadingState(
  config: Config,
  logger: Logger,
  database: Database,
  node: NodeConnection,
  resources: Resources,
): [coinBalances: WakeableLoop, contractCode: BackgroundLoop] {
  const client = createRpcClient({
    url: node.client.url,
    timeoutMs: 10_000,
    retryCount: 1,
    batchSize: STATE_READ_BATCH_SIZE,
    errors: node.errors,
  });
  const heldBack = () => bulkLoadUnderWay(database.pool);
  const balanceStage = startCoinBalanceStage({
    pool: database.pool,
    client,
    logger: logger.child({ component: 'coin-balances' }),
    batchSize: STATE_READ_BATCH_SIZE,
    pollIntervalMs: config.pollIntervalMs,
    heldBack,
  });
  resources.add(() => balanceStage.stop());
  const codeStage = startContractCodeStage({
    pool: database.pool,
    client,
    logger: logger.child({ component: 'contract-code' }),
    batchSize: STATE_READ_BATCH_SIZE,
    pollIntervalMs: config.pollIntervalMs,
    heldBack,
  });
  resources.add(() => codeStage.stop());
  return [balanceStage, codeStage];
}

/** Contracts checked for a proxy at once: their node reads run together, and are saved in one transaction. */
const PROXY_CHECK_BATCH_SIZE = 20;

/** Proxies and what they delegate to, read beside the indexer at the indexed head. */
function startReadingProxies(
  config: Config,
  logger: Logger,
  database: Database,
  node: NodeConnection,
  resources: Resources,
): BackgroundLoop {
  const proxyStage = startProxyStage({
    pool: database.pool,
    client: createRpcClient({ url: node.client.url, timeoutMs: 10_000, retryCount: 1, errors: node.errors }),
    logger: logger.child({ component: 'proxies' }),
    batchSize: PROXY_CHECK_BATCH_SIZE,
    pollIntervalMs: config.pollIntervalMs,
    heldBack: () => bulkLoadUnderWay(database.pool),
  });
  resources.add(() => proxyStage.stop());
  return proxyStage;
}

/** Addresses whose ENS names are read at once (four JSON-RPC batches, one save). */
const ENS_READ_BATCH_SIZE = 50;
/** Indexed blocks scanned at once for addresses and ENS events. */
const ENS_SCAN_BLOCKS = 100;

/** The ENS registry names are read from: the configured one, else mainnet's on chain 1; null: none. */
function ensRegistry(config: Config, chainId: bigint | null) {
  if (config.ensRegistryAddress === 'none') return null;
  return config.ensRegistryAddress ?? (chainId === 1n ? MAINNET_ENS_REGISTRY : null);
}

/** Primary ENS names, read beside the indexer at the indexed head, where a registry is known. */
function startReadingNames(
  config: Config,
  logger: Logger,
  database: Database,
  node: NodeConnection,
  resources: Resources,
): BackgroundLoop[] {
  const registry = ensRegistry(config, node.capabilities.chainId);
  if (registry === null) return [];
  const ensStage = startEnsStage({
    pool: database.pool,
    client: createRpcClient({
      url: node.client.url,
      timeoutMs: 10_000,
      retryCount: 1,
      batchSize: ENS_READ_BATCH_SIZE,
      errors: node.errors,
    }),
    logger: logger.child({ component: 'ens' }),
    registry,
    firstBlock: config.firstBlock,
    batchSize: ENS_READ_BATCH_SIZE,
    scanBlocks: ENS_SCAN_BLOCKS,
    recheckAfterMs: config.ensRefreshIntervalMs,
    tracedBlocks: !config.disableInternalTransactions,
    pollIntervalMs: config.pollIntervalMs,
    heldBack: () => bulkLoadUnderWay(database.pool),
  });
  resources.add(() => ensStage.stop());
  return [ensStage];
}

/**
 * Indexed blocks scanned at once, at most, for the account lists' checkpoints, and how long a shorter
 * run waits after the last scan: the checkpoints follow the head by about ten seconds, and a page
 * counts the rows after the last one. Each scan looks up every busy list it extends, so a history to
 * number (indexed without a bulk load, whose ledger numbers it, or below where the scan began) is
 * scanned in few, long runs: over the bench chain's 50,000 blocks, 10,000 at a time took 17.7 s, 1,000
 * at a time 21.9 s (`npm run bench:list-scan`, bench/README.md).
 */
const LIST_SCAN_BLOCKS = 10_000;
const LIST_SCAN_REST_MS = 10_000;

/** The checkpoints of the busy addresses' Etherscan-style account lists, kept beside the indexer. */
function startListCheckpoints(config: Config, logger: Logger, database: Database, resources: Resources): BackgroundLoop {
  const stage = startListCheckpointStage({
    pool: database.pool,
    logger: logger.child({ component: 'list-checkpoints' }),
    scanBlocks: LIST_SCAN_BLOCKS,
    restMs: LIST_SCAN_REST_MS,
    pollIntervalMs: config.pollIntervalMs,
    // It reads the lists' indexes, which a bulk load builds at its end.
    heldBack: () => bulkLoadUnderWay(database.pool),
  });
  resources.add(() => stage.stop());
  return stage;
}

/** Trace calls go to ETHEREUM_JSONRPC_TRACE_URL when it is set. */
const traceClient = (config: Config, node: NodeConnection) =>
  config.traceUrl === null ? node.client : createRpcClient({ url: config.traceUrl, errors: node.errors });

/** The trace stage, beside the indexer. */
function startTracing(config: Config, logger: Logger, database: Database, node: NodeConnection, resources: Resources): TraceStage {
  const traceStage = startTraceStage({
    pool: database.pool,
    client: traceClient(config, node),
    traceMethod: node.capabilities.traceMethod,
    logger: logger.child({ component: 'traces' }),
    batchSize: config.batchSize,
    concurrency: config.concurrency,
    pollIntervalMs: config.pollIntervalMs,
  });
  resources.add(() => traceStage.stop());
  return traceStage;
}

/** The demo's contracts, verified through the API in the background, so that its pages show their sources and decoded calls. */
function verifyDemo(config: Config, base: string, scenario: ScenarioResult, logger: Logger, resources: Resources): void {
  // Where this process listens, reached from itself (localhost may resolve to an address it does not listen on).
  const self = new URL(base);
  self.hostname = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const stop = new AbortController();
  resources.add(async () => stop.abort());
  verifyDemoContracts(self.origin, scenario.contracts, stop.signal).then(
    () => logger.info('demo contracts submitted for verification'),
    (error: Error) => {
      if (!stop.signal.aborted) logger.warn(`demo contracts not verified: ${error.message}`);
    },
  );
}

export async function migrateCommand(config: Config, logger: Logger): Promise<void> {
  const resources = new Resources();
  try {
    const database = await openMigratedDatabase(config, logger, resources);
    await loadSignatureDatabase(database.pool, logger);
  } finally {
    await resources.closeAll();
  }
}

export async function indexCommand(config: Config, logger: Logger): Promise<void> {
  const resources = new Resources();
  const shutdown = onShutdownSignal(resources, logger);
  try {
    const database = await openMigratedDatabase(config, logger, resources);
    const { indexer, traceStage, tokenStages, balanceStages, proxyStage, failed } = await startIndexing(
      config,
      logger,
      database,
      resources,
    );
    // Up to LAST_BLOCK, the traces, tokens, NFTs, coin balances, contract code and proxies of the blocks indexed are part of the job.
    const finished = async () => {
      await indexer.done;
      await traceStage?.drained();
      // The code stage marks the proxy checks: it drains first.
      for (const stage of [...tokenStages, ...balanceStages]) await stage.drained();
      await proxyStage.drained();
    };
    await Promise.race([finished(), failed, shutdown]);
  } finally {
    await resources.closeAll();
  }
}

export async function startCommand(config: Config, logger: Logger): Promise<void> {
  const resources = new Resources();
  const shutdown = onShutdownSignal(resources, logger);
  try {
    const database = await openMigratedDatabase(config, logger, resources);
    const indexing = await startIndexing(config, logger, database, resources);
    const { indexer, failed } = indexing;
    const base = await listen(config, logger, database, resources, indexing);
    if (indexing.node.demoScenario !== null) verifyDemo(config, base, indexing.node.demoScenario, logger, resources);
    // A signal before the catch-up ends has closed everything by the time `shutdown` resolves.
    const stopped = await Promise.race([indexer.caughtUp.then(() => false), failed, shutdown.then(() => true)]);
    if (stopped) return;
    // Only the example URLs need it: a database too busy to answer in time leaves them without the sample block.
    const newest = await findNewestBlock(database.pool).catch(() => null);
    printTryUrls(logger, base, { address: newest?.miner ?? null, block: newest?.number ?? null });
    // A fatal error of the indexer or of a stage (a reorg too deep to follow, a bug) ends Sextant,
    // API included, rather than leave it serving an index that no longer grows; an indexer that
    // indexed up to LAST_BLOCK leaves the API serving.
    await Promise.race([failed, shutdown]);
  } finally {
    await resources.closeAll();
  }
}
