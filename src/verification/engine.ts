import { setLibSourcifyLogger } from '@ethereum-sourcify/lib-sourcify';
import type { Logger } from 'pino';

// What verification needs of lib-sourcify (and, through it, ethers and the rest): the verifier loads
// this module at its first verification, so a server that verifies nothing never loads them.
export { matchInput } from './match-input.js';
export { sourcifyInputs } from './sourcify-input.js';

/** lib-sourcify logs through one process-wide logger: its words go to ours at debug level (warnings included: "no match" is one). */
export function routeLibraryLogs(logger: Logger | undefined): void {
  setLibSourcifyLogger({
    logLevel: 1,
    setLevel(level: number) {
      this.logLevel = level;
    },
    log(_level: number, message: string, metadata?: unknown) {
      logger?.debug({ lib: 'lib-sourcify', ...(typeof metadata === 'object' ? metadata : {}) }, message);
    },
  });
}
