import { setTimeout as sleep } from 'node:timers/promises';
import { hasReplayed } from '../store/read/replication.js';
import type { Db } from '../store/read/sql.js';

/** How long a change waits for a streaming replica to replay it, and how often that is checked. */
const replayWaitMs = 10_000;
const replayPollMs = 20;

/**
 * Waits until the database read shows the writes up to `walPosition`: the notification comes from the
 * primary at its commit, and a streaming replica replays it a moment later. Past replayWaitMs the
 * change is read anyway (what is not there yet is then missed, as after a reconnect).
 */
export async function waitForReplay(db: Db, walPosition: string): Promise<void> {
  const deadline = Date.now() + replayWaitMs;
  while (!(await hasReplayed(db, walPosition)) && Date.now() < deadline) await sleep(replayPollMs);
}
