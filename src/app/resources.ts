import type { Logger } from 'pino';

/** Closes what was opened, last first, once, on a signal or at the end. */
export class Resources {
  private readonly closers: (() => Promise<unknown>)[] = [];
  add(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }
  async closeAll(): Promise<void> {
    while (this.closers.length > 0) await this.closers.pop()!().catch(() => undefined);
  }
}

/** Resolves once a first SIGINT or SIGTERM has closed everything; a second one exits at once. */
export function onShutdownSignal(resources: Resources, logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) process.exit(1);
      stopping = true;
      logger.info(`${signal}: shutting down (again to force)`);
      void resources.closeAll().then(resolve);
    };
    // Kept registered (not `once`), so that other listeners see that shutdown is taken care of.
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
