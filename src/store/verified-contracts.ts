import type { Pool, PoolClient } from 'pg';
import type { Address, VerifiedContract } from '../model.js';
import { type ContractMethod, saveContractMethods } from './contract-methods.js';
import { byteaFromHex, hexFromBytea, nullableByteaFromHex } from './encode.js';
import { moveVerifiedContract } from './daily-figures.js';
import { notifyChange } from './notifications.js';
import { inTransaction } from './transaction.js';

/** Whether a verification job is still to run, or how it ended. */
export type VerificationJobStatus = 'pending' | 'success' | 'failure';

export interface VerificationJob {
  id: string;
  address: Address;
  request: unknown;
  status: VerificationJobStatus;
  errors: Record<string, string[]> | null;
}

/** A new job, pending. */
export async function createVerificationJob(pool: Pool, job: { id: string; address: Address; request: unknown }): Promise<void> {
  await pool.query(`INSERT INTO verification_jobs (id, address, request, status, created_at) VALUES ($1, $2, $3, 'pending', now())`, [
    job.id,
    byteaFromHex(job.address),
    JSON.stringify(job.request),
  ]);
}

/**
 * Claims the oldest pending job no process holds (none claimed it, or its claim ran out: the process
 * that held it stopped), for `leaseMs`; null when there is none.
 */
export async function claimVerificationJob(pool: Pool, leaseMs: number): Promise<VerificationJob | null> {
  const { rows } = await pool.query<{ id: string; address: Buffer; request: unknown }>(
    `UPDATE verification_jobs SET claimed_until = now() + $1 * interval '1 millisecond'
     WHERE id = (SELECT id FROM verification_jobs
                 WHERE status = 'pending' AND (claimed_until IS NULL OR claimed_until < now())
                 ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING id, address, request`,
    [leaseMs],
  );
  const row = rows[0];
  return row === undefined
    ? null
    : { id: row.id, address: hexFromBytea(row.address), request: row.request, status: 'pending', errors: null };
}

/**
 * Holds a claimed job for `ms` more from now: renewed while the job runs, so that the claim of a
 * process that stopped runs out soon; or a job given back, to be run again by any process after `ms`.
 */
export async function holdVerificationJob(pool: Pool, id: string, ms: number): Promise<void> {
  await pool.query(`UPDATE verification_jobs SET claimed_until = now() + $2 * interval '1 millisecond' WHERE id = $1`, [id, ms]);
}

async function finish(
  pool: Pool,
  job: { id: string; address: Address },
  errors: Record<string, string[]> | null,
  save?: (client: PoolClient) => Promise<void>,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await save?.(client);
    await client.query(`UPDATE verification_jobs SET status = $2, errors = $3, finished_at = now(), claimed_until = NULL WHERE id = $1`, [
      job.id,
      errors === null ? 'success' : 'failure',
      errors === null ? null : JSON.stringify(errors),
    ]);
    await notifyChange(client, { kind: 'verification', address: job.address.toLowerCase(), job: job.id });
  });
}

/** Ends a job that failed, with what to tell the submitter, field by field. */
export function failVerificationJob(pool: Pool, job: { id: string; address: Address }, errors: Record<string, string[]>): Promise<void> {
  return finish(pool, job, errors);
}

/**
 * Ends a job that succeeded: stores the verified contract (a full match replaces a partial one) and its
 * ABI's entries by selector, in one transaction with the job's status, and tells the API processes.
 */
export function completeVerificationJob(
  pool: Pool,
  job: { id: string; address: Address },
  contract: VerifiedContract,
  submitted: { method: string; licenseType: string | null },
  methods: readonly ContractMethod[],
): Promise<void> {
  return finish(pool, job, null, async (client) => {
    const values = [
      byteaFromHex(job.address),
      byteaFromHex(contract.runtimeCodeHash),
      contract.name,
      contract.filePath,
      contract.language,
      contract.compilerVersion,
      JSON.stringify(contract.compilerSettings),
      contract.optimizationEnabled,
      contract.optimizationRuns,
      contract.evmVersion,
      contract.abi === null ? null : JSON.stringify(contract.abi),
      contract.sourceCode,
      JSON.stringify(contract.additionalSources.map((s) => ({ file_path: s.filePath, source_code: s.sourceCode }))),
      nullableByteaFromHex(contract.constructorArgs),
      JSON.stringify(contract.externalLibraries.map((l) => ({ name: l.name, address_hash: l.addressHash }))),
      submitted.licenseType,
      contract.match,
      submitted.method,
    ];
    const insert = `INSERT INTO verified_contracts (address, code_hash, name, file_path, language, compiler_version, compiler_settings,
         optimization_enabled, optimization_runs, evm_version, abi, source_code, additional_sources, constructor_args,
         external_libraries, license_type, match_type, method, verified_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, now())`;
    const day = `(verified_at AT TIME ZONE 'UTC')::date::text AS day`;
    // A first verification is an insert; one that waited for another's insert of the address, or a
    // re-verification, finds the row, locks it and learns the day it moves from.
    const inserted = await client.query<{ day: string }>(`${insert} ON CONFLICT (address) DO NOTHING RETURNING ${day}`, values);
    let verified = inserted.rows[0]?.day;
    let replaced: string | null = null;
    if (verified === undefined) {
      const known = await client.query<{ day: string }>(`SELECT ${day} FROM verified_contracts WHERE address = $1 FOR UPDATE`, [values[0]]);
      replaced = known.rows[0]!.day;
      const updated = await client.query<{ day: string }>(
        `${insert}
       ON CONFLICT (address) DO UPDATE SET code_hash = excluded.code_hash, name = excluded.name, file_path = excluded.file_path,
         language = excluded.language, compiler_version = excluded.compiler_version, compiler_settings = excluded.compiler_settings,
         optimization_enabled = excluded.optimization_enabled, optimization_runs = excluded.optimization_runs,
         evm_version = excluded.evm_version, abi = excluded.abi, source_code = excluded.source_code,
         additional_sources = excluded.additional_sources, constructor_args = excluded.constructor_args,
         external_libraries = excluded.external_libraries, license_type = excluded.license_type,
         match_type = excluded.match_type, method = excluded.method, verified_at = excluded.verified_at
       RETURNING ${day}`,
        values,
      );
      verified = updated.rows[0]!.day;
    }
    await moveVerifiedContract(client, replaced, verified);
    await saveContractMethods(client, methods);
  });
}
