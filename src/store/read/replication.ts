import type { Db } from './sql.js';

/** How far a streaming replica is behind, as it knows it itself. */
export interface ReplicaState {
  /**
   * Seconds since the newest transaction it replayed committed on the primary: the lag while the
   * primary writes, and merely the primary's idle time while it does not. Null before the first replay.
   */
  lagSeconds: number | null;
  /** The WAL position received from the primary, and the one replayed (visible to queries). */
  receivedLsn: string | null;
  replayedLsn: string | null;
  /** WAL received but not yet replayed. */
  replayBacklogBytes: number | null;
}

/** The replica's lag; null when the database is not a replica (a primary, or a promoted one). */
export async function readReplicaState(db: Db): Promise<ReplicaState | null> {
  const { rows } = await db.query<{
    in_recovery: boolean;
    lag_seconds: number | null;
    received: string | null;
    replayed: string | null;
    backlog: string | null;
  }>(
    `SELECT pg_is_in_recovery() AS in_recovery,
            extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS lag_seconds,
            pg_last_wal_receive_lsn()::text AS received,
            pg_last_wal_replay_lsn()::text AS replayed,
            pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())::text AS backlog`,
  );
  const row = rows[0]!;
  if (!row.in_recovery) return null;
  return {
    lagSeconds: row.lag_seconds === null ? null : Math.max(0, row.lag_seconds),
    receivedLsn: row.received,
    replayedLsn: row.replayed,
    replayBacklogBytes: row.backlog === null ? null : Math.max(0, Number(row.backlog)),
  };
}

/** True when the database shows everything the primary wrote up to WAL position `lsn` (always, on a primary). */
export async function hasReplayed(db: Db, lsn: string): Promise<boolean> {
  const { rows } = await db.query<{ replayed: boolean }>(
    `SELECT NOT pg_is_in_recovery() OR coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS replayed`,
    [lsn],
  );
  return rows[0]!.replayed;
}
