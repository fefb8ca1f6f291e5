import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './support/source-files.js';

/**
 * The import rule, as the README states it: which parts of src/ each part may import besides its own
 * files. A part is a folder of src/, or a file directly in it (named without its extension).
 */
const mayImport: Record<string, readonly string[]> = {
  model: [],
  errors: [],
  lib: [],
  config: ['model', 'errors'],
  chain: ['model', 'errors'],
  offchain: ['model', 'errors'],
  store: ['model', 'errors'],
  decoding: ['model', 'errors'],
  indexer: ['chain', 'offchain', 'store', 'lib', 'model', 'errors'],
  api: ['store', 'decoding', 'verification', 'model', 'errors'],
  demo: ['chain', 'model', 'errors'],
  verification: ['model', 'errors'],
  app: ['chain', 'offchain', 'store', 'indexer', 'api', 'demo', 'verification', 'decoding', 'lib', 'config', 'model', 'errors'],
  cli: ['app', 'config', 'model', 'errors'],
};

/** Subsystems with one door: the other parts import their index.ts alone. */
const rooms: readonly string[] = ['decoding', 'verification'];

/** SQL statements, as the store writes them (keywords in capitals). */
const sql = /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX))\b/;

/** The part of src/ a path (src/...) belongs to, or null outside src/. */
function partOf(path: string): string | null {
  const [top, part] = path.split('/');
  return top === 'src' && part !== undefined ? part.replace(/\.[jt]s$/, '') : null;
}

function importViolations(path: string, text: string): string[] {
  const part = partOf(path)!;
  const allowed = [part, ...(mayImport[part] ?? [])];
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .filter((specifier) => {
      const target = partOf(posix.join(posix.dirname(path), specifier));
      return target === null || !allowed.includes(target);
    })
    .map((specifier) => `${path} imports ${specifier}: ${part} may import only ${allowed.join(', ')}`);
}

function doorViolations(path: string, text: string): string[] {
  const part = partOf(path)!;
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .flatMap((specifier) => {
      const target = posix.join(posix.dirname(path), specifier);
      const room = partOf(target);
      if (room === null || room === part || !rooms.includes(room)) return [];
      return target === `src/${room}/index.js` ? [] : [`${path} imports ${specifier}: ${room} is entered by its index.ts alone`];
    });
}

function sqlViolations(path: string, text: string): string[] {
  if (partOf(path) === 'store') return [];
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      const match = sql.exec(node.text);
      if (match) found.push(`${path} has SQL (${match[0]}) outside src/store`);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(path, text, ts.ScriptTarget.Latest));
  return found;
}

/** What breaks the rule in these files (path from the repository root → text). */
function violations(files: ReadonlyMap<string, string>): string[] {
  return [...files].flatMap(([path, text]) => [
    ...importViolations(path, text),
    ...doorViolations(path, text),
    ...sqlViolations(path, text),
  ]);
}

test('every part of src/ is in the import rule', () => {
  const parts = new Set([...sourceFiles().keys()].map((path) => partOf(path)!));
  assert.deepEqual([...parts].sort(), Object.keys(mayImport).sort());
});

test('the README states the same rule', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## How it is built'), readme.indexOf('## Dependencies'));
  const stated = Object.fromEntries(
    [...section.matchAll(/^\| `(\w+)` \| (.*) \|$/gm)].map(([, part, cell]) => [part, [...cell!.matchAll(/`(\w+)`/g)].map((m) => m[1])]),
  );
  assert.deepEqual(stated, mayImport);
});

test('the tree follows the import rule and keeps SQL in src/store', () => {
  assert.deepEqual(violations(sourceFiles()), []);
});

test('a wrong import and SQL outside src/store are reported', () => {
  const found = violations(
    new Map([
      [
        'src/store/untraced.ts',
        "import type { UntracedBlock } from '../chain/fetch-traces.js';\nimport { hexToBuffer } from './encode.js';",
      ],
      [
        'src/api/routes/health.ts',
        "import type { IndexerStatus } from '../../indexer/status.js';\nimport type { Hex } from '../../model.js';",
      ],
      ['src/cli/main.ts', "const commands = await import('../indexer/indexer.js');"],
      ['src/chain/rpc.ts', "export { variants } from '../config.js';"],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a source file that interpolates SQL
      ['src/app/serve.ts', 'const { rows } = await pool.query(`SELECT miner FROM blocks WHERE number = ${n}`);'],
      ['src/indexer/x.ts', "await client.query('DELETE FROM pending_transactions');"],
      ['src/store/read/x.ts', "await db.query('SELECT 1');"],
      ['src/app/x.ts', "import { compile } from '../verification/compile-pool.js';"],
    ]),
  );
  assert.deepEqual(found, [
    'src/store/untraced.ts imports ../chain/fetch-traces.js: store may import only store, model, errors',
    'src/api/routes/health.ts imports ../../indexer/status.js: api may import only api, store, decoding, verification, model, errors',
    'src/cli/main.ts imports ../indexer/indexer.js: cli may import only cli, app, config, model, errors',
    'src/chain/rpc.ts imports ../config.js: chain may import only chain, model, errors',
    'src/app/serve.ts has SQL (SELECT) outside src/store',
    'src/indexer/x.ts has SQL (DELETE FROM) outside src/store',
    'src/app/x.ts imports ../verification/compile-pool.js: verification is entered by its index.ts alone',
  ]);
});
