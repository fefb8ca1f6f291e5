import type { Pool } from 'pg';
import { readCoinBalances, StateNotKeptError } from '../../chain/coin-balances.js';
import type { RpcClient } from '../../chain/rpc.js';
import { findCoinBalanceMarks, findIndexedHead, saveCoinBalances } from '../../store/coin-balances.js';
import { StateNotKept } from './state-not-kept.js';
import { type BackgroundLoopOptions, startBackgroundLoop, type WakeableLoop } from './background-loop.js';

export interface CoinBalanceStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  client: RpcClient;
  /** Addresses read at once (one JSON-RPC batch, one save). */
  batchSize: number;
}

/**
 * Reads the native balance of the addresses the block writer marked (those its blocks touched), at the
 * indexed head, beside the block pipeline, which never waits for it: one history row per read. Reading
 * at the head is what a node that prunes state can serve. A read whose head lost consensus before it
 * was saved is dropped and made again at the new head. Where the node no longer keeps the state of the
 * indexed head (a catch-up far behind it), the marks wait, and the stage with them, until the indexed
 * head moves, or a few seconds pass (StateNotKept).
 */
export function startCoinBalanceStage(options: CoinBalanceStageOptions): WakeableLoop {
  const { pool, client, logger, batchSize } = options;
  /** The height whose state the node does not keep, once it said so. */
  const notKept = new StateNotKept();
  return startBackgroundLoop(options, async (retry) => {
    const marks = await retry('finding coin balances to read', () => findCoinBalanceMarks(pool, batchSize));
    if (marks.length === 0) return false;
    const head = await retry('finding the indexed head', () => findIndexedHead(pool));
    if (head === null || notKept.waits(head.number)) return false;
    const addresses = marks.map((m) => m.address);
    const values = await retry('reading coin balances', () => readCoinBalances(client, addresses, head.number)).catch((error: unknown) => {
      if (!(error instanceof StateNotKeptError)) throw error;
      logger.debug(`${error.message}; balances read once the indexed head moves`);
      return null;
    });
    if (values === null) {
      notKept.refusedAt(head.number);
      return false;
    }
    const read = marks.map((mark, i) => Object.assign({}, mark, { value: values[i] ?? null }));
    const saved = await retry('saving coin balances', () => saveCoinBalances(pool, head, read));
    logger.debug(
      saved ? `read ${marks.length} coin balances at block ${head.number}` : `block ${head.number} lost consensus; balances read again`,
    );
    return true;
  });
}
