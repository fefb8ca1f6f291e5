import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;

/** Every TypeScript file under src/, by its path from the repository root (src/...), with its text. */
export function sourceFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  walk(join(root, 'src'));
  return files;
}
