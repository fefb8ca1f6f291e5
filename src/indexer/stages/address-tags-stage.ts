import type { Pool } from 'pg';
import { readTagsFile, TagsFileError, tagsFileVersion, type TagsFileVersion } from '../../offchain/address-tags-file.js';
import { replaceAddressTags } from '../../store/address-tags.js';
import { recordSourceFailure } from '../../store/offchain-sources.js';
import { type BackgroundLoop, type BackgroundLoopOptions, startBackgroundLoop } from './background-loop.js';

export interface AddressTagsStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  /** The operator's tags file. */
  path: string;
}

const sameVersion = (a: TagsFileVersion | null, b: TagsFileVersion) => a !== null && a.modifiedMs === b.modifiedMs && a.size === b.size;

/**
 * Loads the operator's tags file into the database at start, and again whenever its modification
 * time or size changes (looked at every poll). A file that is missing or does not parse is logged
 * and recorded as the source's failure (GET /health) once per version, and leaves the tags loaded
 * before in place.
 */
export function startAddressTagsStage(options: AddressTagsStageOptions): BackgroundLoop {
  const { pool, path, logger } = options;
  let seen: TagsFileVersion | null = null;
  let missingLogged = false;
  return startBackgroundLoop(options, async (retry) => {
    let version: TagsFileVersion;
    try {
      version = await tagsFileVersion(path);
    } catch (error) {
      if (!missingLogged) {
        const message = `address tags file ${path} cannot be read (${(error as Error).message})`;
        logger.warn(`${message}; the tags loaded before are kept`);
        await retry('recording the tags file failure', () => recordSourceFailure(pool, 'address_tags', message));
      }
      missingLogged = true;
      // Read again once it is back, even unchanged.
      seen = null;
      return false;
    }
    missingLogged = false;
    if (sameVersion(seen, version)) return false;
    seen = version;
    try {
      const tags = await readTagsFile(path);
      await retry('loading address tags', () => replaceAddressTags(pool, tags));
      logger.info(`loaded ${tags.length} address tags from ${path}`);
    } catch (error) {
      if (!(error instanceof TagsFileError) && (error as NodeJS.ErrnoException).code === undefined) throw error;
      const message = `address tags file ${path} not loaded: ${(error as Error).message}`;
      logger.warn(`${message}; the tags loaded before are kept`);
      await retry('recording the tags file failure', () => recordSourceFailure(pool, 'address_tags', message));
    }
    return false;
  });
}
