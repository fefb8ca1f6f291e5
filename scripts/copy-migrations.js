// The build's last step: the SQL migrations go next to the built store (dist/store/migrations), where
// migrate.js reads them. Usage: node scripts/copy-migrations.js [build directory, default dist]
import { cpSync } from 'node:fs';
import { join } from 'node:path';

cpSync(new URL('../src/store/migrations', import.meta.url), join(process.argv[2] ?? 'dist', 'store', 'migrations'), { recursive: true });
