import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';

/** Human-readable lines on a terminal, JSON lines otherwise (for log collectors). */
export function createLogger(level: string): Logger {
  if (process.stdout.isTTY) {
    // Required here, not imported: a process logging to a pipe does not load the prettifier.
    const { build } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    return pino({ level }, build({ sync: true, ignore: 'pid,hostname', translateTime: 'HH:MM:ss' }));
  }
  return pino({ level });
}
