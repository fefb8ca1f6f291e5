import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { abiEntries } from '../decoding/index.js';
import type { Address } from '../model.js';
import { readChainFacts } from '../store/chain-facts.js';
import { findContractCreation, findRuntimeCode } from '../store/read/smart-contracts.js';
import {
  claimVerificationJob,
  completeVerificationJob,
  createVerificationJob,
  failVerificationJob,
  holdVerificationJob,
  type VerificationJob,
} from '../store/verified-contracts.js';
import { type ChainView, type VerificationRequest, type Verifier, VerifierBusyError } from '../verification/index.js';

export interface VerificationJobs {
  /** Queues a verification; resolves with its id (the GUID of the Etherscan-style API) once it is stored. */
  submit(address: Address, request: VerificationRequest): Promise<string>;
  close(): Promise<void>;
}

export interface VerificationJobsOptions {
  /** Where jobs and results are written: the primary. */
  pool: Pool;
  verifier: Verifier;
  logger: Logger;
  /** Jobs this process runs at once. */
  concurrency: number;
  /** How long a claim lasts unless renewed (a third of it apart, while the job runs): another process takes over a job whose claim ran out. */
  leaseMs: number;
  /** How often the queue is looked at for jobs other processes left, and jobs given back. */
  pollIntervalMs: number;
}

/** A GUID as Blockscout makes them: the address without 0x, then a hex timestamp and a few random digits. */
const jobId = (address: Address): string => `${address.slice(2).toLowerCase()}${Date.now().toString(16)}${randomBytes(2).toString('hex')}`;

/** The chain as Sextant indexed it: the code the contract code stage read, creations from blocks and traces. */
function indexedChain(pool: Pool, chainId: number): ChainView {
  return {
    chainId,
    runtimeCode: (address) => findRuntimeCode(pool, address),
    creation: (address) => findContractCreation(pool, address),
  };
}

/**
 * Runs the verification jobs in the database queue, `concurrency` at a time, off the request that
 * submitted them: a submission is stored, then run here or by any process serving the same database
 * (a job whose process stopped is taken over once its lease runs out). A result is stored through the
 * primary and announced on the change feed, which every API process pushes to its websocket clients.
 */
export function startVerificationJobs(options: VerificationJobsOptions): VerificationJobs {
  const { pool, verifier, logger } = options;
  let running = 0;
  let closed = false;
  const inFlight = new Set<Promise<void>>();
  let chain: ChainView | null = null;

  const chainView = async (): Promise<ChainView> => {
    if (chain !== null) return chain;
    const chainId = (await readChainFacts(pool)).get('chain_id');
    if (chainId === undefined) throw new Error('the database names no chain yet');
    chain = indexedChain(pool, Number(chainId));
    return chain;
  };

  const run = async (job: VerificationJob): Promise<void> => {
    const request = job.request as VerificationRequest;
    const renewal = setInterval(() => {
      holdVerificationJob(pool, job.id, options.leaseMs).catch((error: Error) =>
        logger.warn(`verification claim not renewed: ${error.message}`),
      );
    }, options.leaseMs / 3);
    try {
      const outcome = await verifier.verify(job.address, request, await chainView());
      if (outcome.ok) {
        const methods = outcome.contract.abi === null ? [] : abiEntries(outcome.contract.abi);
        await completeVerificationJob(pool, job, outcome.contract, { method: request.method, licenseType: request.licenseType }, methods);
        logger.info(`verified ${job.address} (${outcome.contract.name}, ${outcome.contract.match} match)`);
      } else {
        await failVerificationJob(pool, job, outcome.errors);
        logger.info(`verification of ${job.address} failed: ${JSON.stringify(outcome.errors).slice(0, 300)}`);
      }
    } catch (error) {
      if (error instanceof VerifierBusyError) return holdVerificationJob(pool, job.id, options.pollIntervalMs);
      logger.warn(`verification of ${job.address} could not run: ${(error as Error).message}`);
      await failVerificationJob(pool, job, { contract_source_code: [`Verification could not run: ${(error as Error).message}`] });
    } finally {
      clearInterval(renewal);
    }
  };

  const pump = (): void => {
    while (!closed && running < options.concurrency) {
      running += 1;
      const work = claimVerificationJob(pool, options.leaseMs)
        .then(async (job) => {
          if (job === null) return false;
          await run(job);
          return true;
        })
        .catch((error: unknown) => {
          logger.warn(`verification queue: ${(error as Error).message}`);
          return false;
        })
        .then((claimed) => {
          running -= 1;
          inFlight.delete(work);
          if (claimed) pump();
        });
      inFlight.add(work);
    }
  };

  const timer = setInterval(pump, options.pollIntervalMs).unref();
  pump();

  return {
    async submit(address, request) {
      const id = jobId(address);
      await createVerificationJob(pool, { id, address, request });
      pump();
      return id;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
