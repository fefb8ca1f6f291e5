import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../support/wait.js';

// The one polling helper of the tests (test/support/wait.ts): every wait has a deadline and says what it awaited.

test('returns once the condition holds, checking it again every interval', async () => {
  let checks = 0;
  await waitFor(() => ++checks === 3, 'the third check', { timeoutMs: 5_000, intervalMs: 1 });
  assert.equal(checks, 3);
});

test('takes async conditions', async () => {
  let checks = 0;
  await waitFor(async () => ++checks >= 2, 'the second check', { timeoutMs: 5_000, intervalMs: 1 });
  assert.equal(checks, 2);
});

test('fails after the deadline, naming what it waited for', async () => {
  const started = Date.now();
  await assert.rejects(
    waitFor(() => false, 'the impossible', { timeoutMs: 50, intervalMs: 5 }),
    {
      message: 'timed out after 50 ms waiting until the impossible',
    },
  );
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 50, `gave up after ${elapsed} ms, before the deadline`);
});

test('a message given as a function is read at the deadline, to say how far things got', async () => {
  let left = 10;
  await assert.rejects(
    waitFor(
      () => --left < 0 && false,
      () => `every row is read (${left} left)`,
      { timeoutMs: 30, intervalMs: 1 },
    ),
    (error: unknown) => {
      assert.ok(error instanceof Error, String(error));
      assert.match(error.message, /^timed out after 30 ms waiting until every row is read \(-?\d+ left\)$/);
      assert.notEqual(error.message, 'timed out after 30 ms waiting until every row is read (10 left)');
      return true;
    },
  );
});
