import type { Logger } from 'pino';
import type { Pool } from 'pg';
import { readSignatureDatabase, signatureDatabaseSource } from '../decoding/index.js';
import { replaceSignatures, signatureSourceLoaded } from '../store/signatures.js';

/**
 * Loads the signature database Sextant ships into PostgreSQL, unless it is there already: once per
 * database and version, by whichever indexing process gets there first. Until it is loaded, calls to
 * unverified contracts are decoded with verified ABIs' items only.
 */
export async function loadSignatureDatabase(pool: Pool, logger: Logger): Promise<void> {
  const source = await signatureDatabaseSource();
  if (await signatureSourceLoaded(pool, source)) return;
  const started = performance.now();
  const signatures = await readSignatureDatabase();
  if (await replaceSignatures(pool, source, signatures)) {
    logger.info(`signature database loaded: ${signatures.length} signatures of ${source} in ${Math.round(performance.now() - started)} ms`);
  }
}
