import type { Pool } from 'pg';
import { detectProxy } from '../../chain/proxies.js';
import type { RpcClient } from '../../chain/rpc.js';
import { findIndexedHead } from '../../store/coin-balances.js';
import { findProxyMarks, saveProxyChecks } from '../../store/proxies.js';
import { type BackgroundLoop, type BackgroundLoopOptions, startBackgroundLoop } from './background-loop.js';

export interface ProxyStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  client: RpcClient;
  /** Contracts checked at once (one save). */
  batchSize: number;
}

/**
 * Checks the contracts marked for it (a contract whose code was read, the emitter of an upgrade event,
 * the authority of an EIP-7702 delegation, what a reorg took back) for a proxy, at the indexed head,
 * beside the block pipeline, which never waits for it. A check whose head lost consensus before it was
 * saved is dropped and made again at the new head.
 */
export function startProxyStage(options: ProxyStageOptions): BackgroundLoop {
  const { pool, client, logger, batchSize } = options;
  return startBackgroundLoop(options, async (retry) => {
    const marks = await retry('finding contracts to check for a proxy', () => findProxyMarks(pool, batchSize));
    if (marks.length === 0) return false;
    // The head is read again on each attempt: a node that keeps the state of its newest blocks alone
    // refuses an indexed head far behind it, and answers once the index has moved on.
    const read = await retry('reading proxies', async () => {
      const head = await findIndexedHead(pool);
      return head === null ? null : { head, proxies: await Promise.all(marks.map((m) => detectProxy(client, m.address, head.number))) };
    });
    if (read === null) return false;
    const { head, proxies } = read;
    const checked = marks.map((mark, i) => Object.assign({}, mark, { proxy: proxies[i] ?? null }));
    const saved = await retry('saving proxies', () => saveProxyChecks(pool, head, checked));
    logger.debug(
      saved
        ? `checked ${marks.length} contracts for a proxy at block ${head.number}`
        : `block ${head.number} lost consensus; proxies read again`,
    );
    return true;
  });
}
