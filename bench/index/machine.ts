import { cpus, freemem, loadavg, totalmem } from 'node:os';

/** The machine a figure was taken on, and how busy it was: figures mean little without it. */
export function describeMachine(): string {
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  return `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${gib(totalmem())} memory (${gib(freemem())} free), Node ${process.version}`;
}

export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
