import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl, urlSecrets } from '../src/errors.js';
import { createTestDatabase, testServerUrl } from './support/database.js';
import { runSextant } from './support/sextant-process.js';

// The password of DATABASE_URL never appears in what Sextant prints, whatever the URL's shape.

const SECRET = 'Sup3rS3cret';
const server = new URL(testServerUrl);
const hostPort = `${server.hostname}:${server.port || 5432}`;

/** DATABASE_URL shapes that Sextant refuses, each with the password somewhere in it. */
const refusedShapes: Record<string, string> = {
  'a bad port': `postgres://user:${SECRET}@127.0.0.1:99999/db`,
  'a wrong scheme': `mysql://user:${SECRET}@127.0.0.1/db`,
  'not a URL': `user:${SECRET}@127.0.0.1/db`,
  'a libpq keyword string': `host=127.0.0.1 user=postgres password=${SECRET}`,
  'an unclosed IPv6 host': `postgres://user:${SECRET}@[::1/db`,
  'a ?password= parameter, no server there': `postgres://user@127.0.0.1:1/db?password=${SECRET}`,
  'a percent-encoded ?pass%77ord= parameter': `postgres://user@127.0.0.1:1/db?pass%77ord=${SECRET}`,
  'a percent-encoded password': `postgres://user:${SECRET.slice(0, 3)}%${SECRET.charCodeAt(3).toString(16)}${SECRET.slice(4)}@127.0.0.1:1/db`,
  'a password with an unencoded @': `postgres://user:${SECRET}@x@127.0.0.1:1/db`,
  'a role the server does not have': `postgres://nobody:${SECRET}@${hostPort}/postgres`,
  'a database the server does not have': `postgres://postgres:${SECRET}@${hostPort}/no_such_database`,
};

function assertNoSecret(output: string, what: string): void {
  assert.ok(!output.includes(SECRET), `${what}: the password is printed:\n${output}`);
  // Its tail, which every shape of it (written, percent-encoded or not) shares.
  assert.ok(!output.includes(SECRET.slice(4)), `${what}: a part of the password is printed:\n${output}`);
}

for (const [shape, url] of Object.entries(refusedShapes)) {
  test(`DATABASE_URL with ${shape}: refused in one line that does not show the password`, async () => {
    const run = await runSextant(['migrate'], { DATABASE_URL: url, SEXTANT_DEBUG: '1' });
    assert.equal(run.code, 1, `exit code 1:\n${run.stderr}`);
    assert.match(run.stderr, /^sextant: .*DATABASE_URL/);
    assertNoSecret(run.stdout + run.stderr, shape);
  });
}

test('DATABASE_READ_ONLY_API_URL with a password and no server there: refused without showing it', async () => {
  const db = await createTestDatabase();
  try {
    const run = await runSextant(['serve'], {
      DATABASE_URL: db.url,
      DATABASE_READ_ONLY_API_URL: `postgres://reader:${SECRET}@127.0.0.1:1/db`,
    });
    assert.equal(run.code, 1, `exit code 1:\n${run.stderr}`);
    assert.match(run.stderr, /^sextant: cannot connect to DATABASE_READ_ONLY_API_URL postgres:\/\/reader:\*\*\*@127\.0\.0\.1:1\/db/);
    assertNoSecret(run.stdout + run.stderr, 'the read-only URL');
  } finally {
    await db.drop();
  }
});

test('DATABASE_VERIFICATION_URL with a password and no server there: refused without showing it', async () => {
  const db = await createTestDatabase();
  try {
    const run = await runSextant(['serve'], {
      DATABASE_URL: db.url,
      DATABASE_VERIFICATION_URL: `postgres://verifier:${SECRET}@127.0.0.1:1/db`,
    });
    assert.equal(run.code, 1, `exit code 1:\n${run.stderr}`);
    assert.match(run.stderr, /^sextant: cannot connect to DATABASE_VERIFICATION_URL postgres:\/\/verifier:\*\*\*@127\.0\.0\.1:1\/db/);
    assertNoSecret(run.stdout + run.stderr, 'the verification URL');
  } finally {
    await db.drop();
  }
});

test('a working DATABASE_URL with a password, logging at debug level: no log line shows it', async () => {
  const db = await createTestDatabase({ migrated: false });
  try {
    const url = new URL(db.url);
    url.password = SECRET;
    const run = await runSextant(['migrate'], { DATABASE_URL: `${url.toString()}?sslmode=disable&password=${SECRET}`, LOG_LEVEL: 'debug' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /database migrated/);
    assertNoSecret(run.stdout + run.stderr, 'a working URL');
  } finally {
    await db.drop();
  }
});

test('urlSecrets finds the password of every shape, and redactUrl keeps the rest of the URL', () => {
  for (const [shape, url] of Object.entries(refusedShapes)) {
    assert.ok(!redactUrl(url).includes(SECRET), `${shape}: ${redactUrl(url)}`);
  }
  assert.equal(redactUrl('postgres://user:pw@host:5432/db?sslmode=require'), 'postgres://user:***@host:5432/db?sslmode=require');
  assert.equal(redactUrl('postgres://user@host/db?password=pw&sslmode=require'), 'postgres://user@host/db?password=***&sslmode=require');
  assert.deepEqual(urlSecrets('postgres://user@host:5432/db'), []);
  assert.deepEqual(urlSecrets('http://127.0.0.1:8545'), []);
});
