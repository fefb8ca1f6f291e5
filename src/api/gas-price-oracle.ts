import { type GasPriceFiguresItem, type GasPriceSampleItem, isConsensusBlock, readGasPriceFigures } from '../store/read/stats.js';
import type { Db } from '../store/read/sql.js';

/** Blockscout's defaults: its oracle's blocks (GAS_PRICE_ORACLE_NUM_OF_BLOCKS) and cache period (GAS_PRICE_ORACLE_CACHE_PERIOD). */
const oracleBlocks = 200;
const oraclePeriodMs = 30_000;

/** The oracle's figures as last computed, and when. */
export interface GasPriceReading {
  figures: GasPriceFiguresItem | null;
  updatedAt: Date;
  /** Milliseconds until the figures are computed again. */
  updateInMs: number;
}

/**
 * Gas prices as Blockscout's oracle keeps them: computed at most once a period, the last figures
 * served meanwhile. A request that finds them stale computes them again; requests that come while
 * it does get the stale figures, as Blockscout's do. Figures of blocks a reorg took off the chain
 * are stale at once (Blockscout serves them out their period).
 */
export function gasPriceOracle(db: Db, periodMs = oraclePeriodMs): () => Promise<GasPriceReading> {
  let last: (GasPriceSampleItem & { updatedAt: Date }) | null = null;
  let refreshing = false;
  const reading = (now: number): GasPriceReading => ({
    figures: last!.figures,
    updatedAt: last!.updatedAt,
    updateInMs: Math.max(0, last!.updatedAt.getTime() + periodMs - now),
  });
  const fresh = async (now: number): Promise<boolean> =>
    last !== null && now - last.updatedAt.getTime() < periodMs && last.headHash !== null && (await isConsensusBlock(db, last.headHash));
  return async () => {
    const now = Date.now();
    if (last !== null && (refreshing || (await fresh(now)))) return reading(now);
    refreshing = true;
    try {
      last = Object.assign(await readGasPriceFigures(db, oracleBlocks), { updatedAt: new Date() });
    } finally {
      refreshing = false;
    }
    return reading(Date.now());
  };
}
