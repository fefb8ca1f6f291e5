import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { demoCompilerVersion, demoStandardInput } from '../../src/demo/standard-input.js';
import { migrate } from '../../src/store/migrate.js';
import { createTestDatabase, type TestDatabase, testServerUrl } from '../support/database.js';
import { type RunningSextant, startSextant } from '../support/sextant-process.js';
import { type TokenChain, indexTokenChainWithContracts, startTokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';

/** The README's SQL that creates the verification role, for a role of this name (no password: the test server trusts 127.0.0.1). */
async function readmeGrants(role: string): Promise<string> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('`DATABASE_VERIFICATION_URL` writes jobs and results'));
  const sql = /```sql\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(sql !== undefined, 'the README gives the SQL that creates the verification role');
  return sql.replace(/ PASSWORD '[^']*'/, '').replace(/\bverifier\b/g, role);
}

describe('verification results written as a role that may write the verification tables only', () => {
  let chain: TokenChain;
  let db: TestDatabase;
  let cacheDir: string;
  let sextant: RunningSextant | undefined;
  const role = `sextant_verifier_${randomBytes(5).toString('hex')}`;
  let roleUrl: string;

  before(async () => {
    chain = await startTokenChain();
    db = await createTestDatabase();
    await indexTokenChainWithContracts(chain, db);
    await db.pool.query(await readmeGrants(role));
    const url = new URL(db.url);
    url.username = role;
    roleUrl = url.toString();
    cacheDir = await mkdtemp(join(tmpdir(), 'sextant-compilers-'));
    sextant = await startSextant(
      { DATABASE_URL: db.url, DATABASE_VERIFICATION_URL: roleUrl, SEXTANT_DATA_DIR: cacheDir, SOLC_BIN_API_URL: 'none' },
      120_000,
      'serve',
    );
  });

  after(async () => {
    await sextant?.stop();
    await db?.drop();
    // A role is the server's, not the database's: dropped once the database that granted it rights is gone.
    const admin = new pg.Client({ connectionString: `${testServerUrl}/postgres` });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
    await chain?.anvil.stop();
    if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  });

  test('a verification through the API is stored and served, through the role', async () => {
    const base = sextant!.baseUrl;
    const erc20 = chain.scenario.contracts.erc20;
    const form = new FormData();
    form.set('compiler_version', demoCompilerVersion);
    form.set('contract_name', '');
    form.set('autodetect_constructor_args', 'true');
    form.set('files[0]', new Blob([demoStandardInput], { type: 'application/json' }), 'input.json');
    const answer = await fetch(`${base}/api/v2/smart-contracts/${erc20}/verification/via/standard-input`, { method: 'POST', body: form });
    assert.equal(answer.status, 200, await answer.text());
    let sawRole = false;
    await waitFor(
      async () => {
        const seen = await db.pool.query('SELECT 1 FROM pg_stat_activity WHERE usename = $1', [role]);
        sawRole ||= (seen.rowCount ?? 0) > 0;
        return ((await (await fetch(`${base}/api/v2/smart-contracts/${erc20}`)).json()) as { is_verified?: boolean }).is_verified === true;
      },
      'the ERC-20 verified',
      { timeoutMs: 120_000 },
    );
    assert.ok(sawRole, `the serve process connected as ${role}`);
    const job = await db.pool.query("SELECT status FROM verification_jobs WHERE address = decode($1, 'hex')", [
      erc20.slice(2).toLowerCase(),
    ]);
    assert.deepEqual(
      job.rows.map((r) => r.status),
      ['success'],
    );
    const methods = await db.pool.query('SELECT count(*) AS n FROM contract_methods');
    assert.ok(Number(methods.rows[0].n) > 0, 'the ABI is kept by selector');
    const list = (await (await fetch(`${base}/api/v2/smart-contracts`)).json()) as { items: { address: { hash: string } }[] };
    assert.deepEqual(
      list.items.map((i) => i.address.hash.toLowerCase()),
      [erc20.toLowerCase()],
    );
  });

  test('the role cannot write any other table', async () => {
    const client = new pg.Client({ connectionString: roleUrl });
    await client.connect();
    try {
      for (const statement of [
        'INSERT INTO blocks DEFAULT VALUES',
        'UPDATE blocks SET gas_used = 0',
        'DELETE FROM transactions',
        'INSERT INTO tokens DEFAULT VALUES',
        'DELETE FROM verified_contracts',
      ]) {
        await assert.rejects(client.query(statement), (error: { code?: string }) => error.code === '42501', statement);
      }
    } finally {
      await client.end();
    }
  });
});

test('a verification role made before migration 060 may write the table it adds once the migration ran', async () => {
  const db = await createTestDatabase({ migrated: false });
  const role = `sextant_verifier_${randomBytes(5).toString('hex')}`;
  try {
    // The schema as it was before 060, and the role as the README then made it.
    const directory = new URL('../../src/store/migrations/', import.meta.url);
    await db.pool.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const file of (await readdir(directory)).filter((f) => f.endsWith('.sql') && f < '060').sort()) {
      await db.pool.query(await readFile(new URL(file, directory), 'utf8'));
      await db.pool.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
    }
    const before060 = (await readmeGrants(role))
      .split('\n')
      .filter((line) => !line.includes('daily_verified_contracts'))
      .join('\n');
    await db.pool.query(before060);
    const applied = await migrate(db.pool);
    assert.equal(applied[0], '060_chart_lines.sql', 'migration 060 is the first one to run');
    const { rows } = await db.pool.query<{ allowed: boolean }>(
      `SELECT has_table_privilege($1, 'daily_verified_contracts', privilege) AS allowed
       FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) privilege`,
      [role],
    );
    assert.deepEqual(
      rows.map((r) => r.allowed),
      [true, true, true, true],
    );
    assert.equal((await db.pool.query("SELECT has_table_privilege($1, 'blocks', 'INSERT') AS allowed", [role])).rows[0].allowed, false);
  } finally {
    await db.drop();
    const admin = new pg.Client({ connectionString: `${testServerUrl}/postgres` });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  }
});
