import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { createTestDatabase } from './support/database.js';

const root = new URL('..', import.meta.url);

/** Writes `file` (under src/) and the modules it imports by relative path, transpiled, to the same place under `out`. */
function transpileWithImports(file: string, out: string, done = new Set<string>()): void {
  if (done.has(file)) return;
  done.add(file);
  const source = readFileSync(new URL(`src/${file}`, root), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  });
  mkdirSync(join(out, dirname(file)), { recursive: true });
  writeFileSync(join(out, file.replace(/\.ts$/, '.js')), outputText);
  // Type-only imports are gone from the output: what it still imports is what must be there.
  for (const [, specifier] of outputText.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
    transpileWithImports(join(dirname(file), `${specifier!}.ts`), out, done);
  }
}

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
