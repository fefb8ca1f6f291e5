import { createMetadataContractsFromFiles, type SolidityMetadataContract } from '@ethereum-sourcify/lib-sourcify';
import { failure, messages } from './messages.js';
import type { PreparedInput } from './prepare-input.js';
import type { VerificationOutcome, VerificationRequest } from './types.js';

type Prepared = { ok: true; inputs: PreparedInput[] } | (VerificationOutcome & { ok: false });

function unusable(contract: SolidityMetadataContract): string[] {
  return [
    ...Object.keys(contract.missingSources).map((path) => `Missing source: ${path}`),
    ...Object.keys(contract.invalidSources).map((path) => `Source ${path} does not have the hash the metadata gives`),
  ];
}

/**
 * The compiler inputs a metadata.json (or several, or a Hardhat build file) and its sources describe,
 * the one chosen or each in turn. Nothing is fetched: a source missing from the files is an error.
 */
export async function sourcifyInputs(request: VerificationRequest & { method: 'sourcify' }): Promise<Prepared> {
  let contracts: SolidityMetadataContract[];
  try {
    contracts = await createMetadataContractsFromFiles(
      Object.entries(request.files).map(([path, content]) => ({ path, buffer: Buffer.from(content) })),
    );
  } catch (err) {
    return failure('files', `${messages.invalidJson} ${(err as Error).message}`);
  }
  if (contracts.length === 0) return failure('files', 'Metadata file not found');
  if (request.chosenContractIndex !== null) {
    const chosen = contracts[request.chosenContractIndex];
    if (chosen === undefined)
      return failure('files', `There is no contract number ${request.chosenContractIndex}: the files describe ${contracts.length}.`);
    contracts = [chosen];
  }
  const usable = contracts.filter((contract) => unusable(contract).length === 0 && contract.solcJsonInput !== null);
  if (usable.length === 0) return failure('files', ...unusable(contracts[0]!));
  return {
    ok: true,
    inputs: usable.map((contract) => ({
      compilerVersion: String(contract.metadata.compiler?.version ?? ''),
      input: contract.solcJsonInput!,
      language: 'Solidity' as const,
      contractName: `${contract.path}:${contract.name}`,
      constructorArgs: null,
      autodetectConstructorArgs: true,
    })),
  };
}
