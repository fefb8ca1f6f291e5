import { readFile } from 'node:fs/promises';

/** Resident memory of a process, from /proc: now (VmRSS) and at its peak so far (VmHWM), in bytes. */
export async function readMemory(pid: number): Promise<{ rss: number; peak: number } | null> {
  let status: string;
  try {
    status = await readFile(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kilobytes('VmRSS'), peak: kilobytes('VmHWM') };
}

export const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
