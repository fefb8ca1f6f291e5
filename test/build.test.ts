import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTestDatabase } from './support/database.js';
import { transpileWithImports } from './support/transpile.js';

const root = new URL('..', import.meta.url);

test('migrate, built and laid out as `npm run build` lays out dist/, finds and applies every migration', async () => {
  const out = mkdtempSync(join(tmpdir(), 'sextant-build-'));
  const db = await createTestDatabase({ migrated: false });
  try {
    writeFileSync(join(out, 'package.json'), '{ "type": "module" }');
    transpileWithImports('store/migrate.ts', out);
    execFileSync(process.execPath, ['scripts/copy-migrations.js', out], { cwd: root });

    const built = (await import(pathToFileURL(join(out, 'store', 'migrate.js')).href)) as typeof import('../src/store/migrate.js');
    assert.deepEqual(await built.migrate(db.pool), readdirSync(new URL('src/store/migrations', root)).sort());
  } finally {
    await db.drop();
    rmSync(out, { recursive: true, force: true });
  }
});
