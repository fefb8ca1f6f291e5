import { createRequire } from 'node:module';
import { pino, type Logger, type LoggerOptions } from 'pino';
import { redact } from '../errors.js';

/**
 * Human-readable lines on a terminal, JSON lines otherwise (for log collectors); each line written
 * without the `secrets` (see redact), whatever logged it.
 */
export function createLogger(level: string, secrets: readonly string[]): Logger {
  const options: LoggerOptions = { level, hooks: { streamWrite: (line) => redact(line, secrets) } };
  if (process.stdout.isTTY) {
    // Required here, not imported: a process logging to a pipe does not load the prettifier.
    const { build } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    return pino(options, build({ sync: true, ignore: 'pid,hostname', translateTime: 'HH:MM:ss' }));
  }
  return pino(options);
}
