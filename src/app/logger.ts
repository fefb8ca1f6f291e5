import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

/** Human-readable lines on a terminal, JSON lines otherwise (for log collectors). */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  if (process.stdout.isTTY) {
    return pino({ level }, pretty({ sync: true, ignore: 'pid,hostname', translateTime: 'HH:MM:ss' }));
  }
  return pino({ level });
}
