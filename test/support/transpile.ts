import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

const root = new URL('../..', import.meta.url);

/**
 * Writes `file` (under src/) and the modules it imports by relative path, transpiled, to the same place
 * under `out`, as `npm run build` lays them out in dist/.
 */
export function transpileWithImports(file: string, out: string, done = new Set<string>()): void {
  if (done.has(file)) return;
  done.add(file);
  const source = readFileSync(new URL(`src/${file}`, root), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  });
  mkdirSync(join(out, dirname(file)), { recursive: true });
  writeFileSync(join(out, file.replace(/\.ts$/, '.js')), outputText);
  // Type-only imports are gone from the output: what it still imports (statically, or with import()
  // when it runs) is what must be there.
  for (const [, specifier] of outputText.matchAll(/(?:from |import\()'(\.{1,2}\/[^']+)\.js'/g)) {
    transpileWithImports(join(dirname(file), `${specifier!}.ts`), out, done);
  }
}
