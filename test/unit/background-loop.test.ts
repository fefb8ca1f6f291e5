import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { startBackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { waitFor } from '../support/wait.js';

const logger = pino({ level: 'silent' });

test('a stage held back runs no step and is not drained until it is let go, then runs as usual', async () => {
  let held = true;
  let asked = 0;
  let steps = 0;
  let work = 3;
  const loop = startBackgroundLoop(
    {
      logger,
      pollIntervalMs: 5,
      heldBack: async () => {
        asked += 1;
        return held;
      },
    },
    async () => {
      steps += 1;
      if (work === 0) return false;
      work -= 1;
      return true;
    },
  );
  try {
    let drained = false;
    void loop.drained().then(() => (drained = true));
    await waitFor(() => asked >= 5, 'the loop asking five times whether it must wait');
    await sleep(20);
    assert.equal(steps, 0, 'no step while held back');
    assert.equal(drained, false, 'a held stage is not drained: its work is still to come');
    held = false;
    await loop.drained();
    assert.equal(work, 0, 'the work done once let go');
    assert.equal(steps, 4, 'three steps with work, then one that found none');
  } finally {
    await loop.stop();
  }
});
