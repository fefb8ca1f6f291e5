import type { Pool } from 'pg';
import { StateNotKeptError } from '../../chain/coin-balances.js';
import { readContractCode } from '../../chain/contract-code.js';
import type { RpcClient } from '../../chain/rpc.js';
import { findIndexedHead } from '../../store/coin-balances.js';
import { findContractCodeMarks, saveContractCodes } from '../../store/contract-codes.js';
import { StateNotKept } from './state-not-kept.js';
import { type BackgroundLoop, type BackgroundLoopOptions, startBackgroundLoop } from './background-loop.js';

export interface ContractCodeStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  client: RpcClient;
  /** Addresses read at once (one JSON-RPC batch, one save). */
  batchSize: number;
}

/**
 * Reads the runtime code of the contracts the writers marked, at the indexed head, beside the block
 * pipeline: what verification matches, the smart-contract page shows, and bytecode twins share. As the
 * coin balance stage does, a read whose head lost consensus is made again, and where the node keeps
 * no state of the indexed head the marks wait until the head moves, or a few seconds (StateNotKept).
 */
export function startContractCodeStage(options: ContractCodeStageOptions): BackgroundLoop {
  const { pool, client, logger, batchSize } = options;
  const notKept = new StateNotKept();
  return startBackgroundLoop(options, async (retry) => {
    const addresses = await retry('finding contract code to read', () => findContractCodeMarks(pool, batchSize));
    if (addresses.length === 0) return false;
    const head = await retry('finding the indexed head', () => findIndexedHead(pool));
    if (head === null || notKept.waits(head.number)) return false;
    const codes = await retry('reading contract code', () => readContractCode(client, addresses, head.number)).catch((error: unknown) => {
      if (!(error instanceof StateNotKeptError)) throw error;
      logger.debug(`${error.message}; contract code read once the indexed head moves`);
      return null;
    });
    if (codes === null) {
      notKept.refusedAt(head.number);
      return false;
    }
    const read = addresses.map((address, i) => ({ address, code: codes[i] ?? null }));
    const saved = await retry('saving contract code', () => saveContractCodes(pool, head, read));
    logger.debug(
      saved
        ? `read the code of ${addresses.length} contracts at block ${head.number}`
        : `block ${head.number} lost consensus; code read again`,
    );
    return true;
  });
}
