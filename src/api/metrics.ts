import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { NodeRequestErrors } from '../model.js';
import { readIndexFigures } from '../store/read/index-figures.js';
import type { SlotUse } from './answer-slots.js';
import type { ApiApp, ApiContext } from './route.js';

/** The connections of a pg.Pool: all of them, the idle ones, and the queries waiting for one. */
export interface PoolUse {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface MetricsOptions {
  /** The API's pool; no pool figures when null. */
  pool: PoolUse | null;
  /** Counted by the indexer's JSON-RPC clients; none when no indexer runs in this process. */
  nodeErrors: NodeRequestErrors | null;
  websocketClients: () => number;
  /** The bytes the shared answers hold (shared-answers.ts). */
  sharedAnswerBytes: () => number;
  /** The routed reads' slots (request-slots.ts). */
  requestSlots: SlotUse;
  /** The Etherscan-style lists' own slots (etherscan/router.ts). */
  listSlots: SlotUse;
}

export const metricsPath = '/metrics';

/** Told of a request answered before it was routed (early-answers.ts). */
export type AnsweredEarly = (method: string, route: string, seconds: number) => void;

/** Requests, by the route's template rather than the URL, so that the series stay few. */
function registerRequestMetrics(app: ApiApp, registry: Registry): AnsweredEarly {
  const duration = new Histogram({
    name: 'sextant_http_request_duration_seconds',
    help: 'API requests by method, route template and status, and how long they took to answer (its _count counts them)',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  const early = new Counter({
    name: 'sextant_http_requests_answered_early_total',
    help: 'API requests answered with a kept shared answer before routing (counted among the requests too)',
    registers: [registry],
  });
  return (method, route, seconds) => {
    duration.observe({ method, route, status: '200' }, seconds);
    early.inc();
  };
}

/** The gauges read on each scrape: from the index itself (so `sextant serve` alone has them), the indexer's status, the pool and the hub. */
function scrapedFigures(registry: Registry, context: ApiContext, options: MetricsOptions): () => Promise<void> {
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  // Without an indexer in this process, the node's figures are not reported at all rather than as 0.
  const beside = context.indexerStatus !== null;
  const nodeHead = beside ? gauge('sextant_node_head', "the node's head as the indexer last saw it") : null;
  const lag = beside ? gauge('sextant_indexed_head_lag_blocks', "blocks between the node's head and the indexed head") : null;
  const indexedHead = gauge('sextant_indexed_head', 'the highest consensus block indexed');
  const blocks = gauge('sextant_indexed_blocks', 'consensus blocks in the index');
  const transactions = gauge('sextant_indexed_transactions', 'transactions of consensus blocks in the index');
  const backlog = gauge(
    'sextant_backlog',
    'work not done yet: blocks to trace, token contracts and NFT instances whose metadata is to read',
    ['stage'],
  );
  const pool = gauge('sextant_db_pool_connections', "the API's database connections: open, idle, and queries waiting for one", ['state']);
  const websocket = gauge('sextant_websocket_clients', 'clients connected to the websocket');
  const sharedAnswers = gauge(
    'sextant_shared_answers_bytes',
    'the bytes of the answers kept to share between requests, compressed bodies included',
  );
  const requestSlots = gauge(
    'sextant_request_slots',
    'routed reads holding one of the slots they are computed in (two a core), and those waiting in line for one',
    ['state'],
  );
  const listSlots = gauge(
    'sextant_etherscan_list_slots',
    'Etherscan-style lists holding one of the slots they are computed in (two a core), and those waiting in line for one',
    ['state'],
  );
  const nodeErrors = new Counter({
    name: 'sextant_node_request_errors_total',
    help: 'failed JSON-RPC requests to the node (each attempt), by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  return async () => {
    const figures = await readIndexFigures(context.db);
    const head = context.indexerStatus?.head ?? null;
    if (head !== null) {
      nodeHead?.set(Number(head));
      lag?.set(Number(head - (figures.head ?? context.indexing.firstBlock - 1n)));
    }
    if (figures.head !== null) indexedHead.set(Number(figures.head));
    blocks.set(Number(figures.blocks));
    transactions.set(Number(figures.transactions));
    if (context.indexing.tracesIndexed) backlog.set({ stage: 'traces' }, Number(figures.untracedBlocks));
    backlog.set({ stage: 'token_metadata' }, Number(figures.tokensWithoutMetadata));
    backlog.set({ stage: 'nft_metadata' }, Number(figures.instancesWithoutMetadata));
    if (options.pool !== null) {
      pool.set({ state: 'total' }, options.pool.totalCount);
      pool.set({ state: 'idle' }, options.pool.idleCount);
      pool.set({ state: 'waiting' }, options.pool.waitingCount);
    }
    websocket.set(options.websocketClients());
    sharedAnswers.set(options.sharedAnswerBytes());
    requestSlots.set({ state: 'held' }, options.requestSlots.held);
    requestSlots.set({ state: 'waiting' }, options.requestSlots.waiting);
    listSlots.set({ state: 'held' }, options.listSlots.held);
    listSlots.set({ state: 'waiting' }, options.listSlots.waiting);
    nodeErrors.reset();
    for (const [kind, count] of options.nodeErrors ?? []) nodeErrors.inc({ kind }, count);
  };
}

/**
 * Prometheus's text format at /metrics: the API's requests, the index's progress and backlogs, the
 * node's errors, the pool, the request and list slots, the websocket. Returns what counts the requests answered
 * before routing.
 */
export function registerMetrics(app: ApiApp, context: ApiContext, options: MetricsOptions): AnsweredEarly {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'sextant_' });
  const answeredEarly = registerRequestMetrics(app, registry);
  const refresh = scrapedFigures(registry, context, options);
  // Prometheus's text, for scrapers: not an operation of the REST API's document.
  app.get(metricsPath, { schema: { hide: true } }, async (_request, reply) => {
    await refresh();
    void reply.header('content-type', registry.contentType).header('cache-control', 'no-store');
    return registry.metrics();
  });
  return answeredEarly;
}
