import type { Address } from '../../model.js';
import { readProxyImplementations } from '../../store/read/contract-facts.js';
import { findContractCreation, findSmartContract, findVerificationJob } from '../../store/read/smart-contracts.js';
import { listcontracts } from './contract-list.js';
import { checkproxyverification, verifyproxycontract } from './proxy-verification.js';
import type { VerificationRequest } from '../../verification/index.js';
import type { ApiContext } from '../route.js';
import { type Action, type ModuleActions, listAction } from './action.js';
import { type ActionAnswer, failure, ok } from './envelope.js';
import { type ActionParams, addressOf, parseAddress } from './params.js';

/**
 * The contract module, as forge (`verify-contract --verifier blockscout`, `cast source`) and
 * hardhat-verify use it: a contract's ABI and sources, verification through the same engine and job
 * queue as the verification form's, and contract creations. The strings they compare are Blockscout's.
 */

const notVerified = 'Contract source code not verified';
const alreadyVerified = 'Smart-contract already verified.';
const notAContract = 'The address is not a smart contract';

const getabi: Action = async (params, { db }) => {
  const address = addressOf(params, 'address');
  if (typeof address !== 'string') return address;
  const contract = await findSmartContract(db, address);
  const abi = contract?.verified?.abi ?? null;
  return abi === null ? failure(notVerified) : ok(JSON.stringify(abi));
};

/** The sources as Etherscan gives them: the one file's text, else the standard JSON input in double braces. */
function sourceCode(verified: NonNullable<NonNullable<Awaited<ReturnType<typeof findSmartContract>>>['verified']>): string {
  if (verified.additionalSources.length === 0) return verified.sourceCode;
  const sources = Object.fromEntries(
    [{ filePath: verified.filePath, sourceCode: verified.sourceCode }, ...verified.additionalSources].map((s) => [
      s.filePath,
      { content: s.sourceCode },
    ]),
  );
  return `{${JSON.stringify({ language: 'Solidity', sources, settings: verified.compilerSettings })}}`;
}

const getsourcecode: Action = async (params, { db }) => {
  const address = addressOf(params, 'address');
  if (typeof address !== 'string') return address;
  const [contract, proxies] = await Promise.all([findSmartContract(db, address), readProxyImplementations(db, [address])]);
  const verified = contract?.verified ?? null;
  // Etherscan's Proxy and Implementation: the first implementation of a proxy found at the indexed head.
  const implementation = proxies.get(address.toLowerCase() as Address)?.implementations[0]?.address ?? null;
  if (verified === null) {
    // Etherscan's form of an unverified contract, which forge and hardhat-verify read as such.
    return ok([
      {
        SourceCode: '',
        ABI: notVerified,
        ContractName: '',
        CompilerVersion: '',
        OptimizationUsed: '',
        Runs: '',
        ConstructorArguments: '',
        EVMVersion: '',
        Library: '',
        LicenseType: '',
        Proxy: '0',
        Implementation: '',
        SwarmSource: '',
      },
    ]);
  }
  return ok([
    {
      SourceCode: sourceCode(verified),
      ABI: JSON.stringify(verified.abi ?? []),
      ContractName: verified.name,
      CompilerVersion: verified.compilerVersion,
      OptimizationUsed: verified.optimizationEnabled ? '1' : '0',
      Runs: String(verified.optimizationRuns ?? 200),
      ConstructorArguments: verified.constructorArgs?.slice(2) ?? '',
      EVMVersion: verified.evmVersion === 'default' ? 'Default' : verified.evmVersion,
      Library: verified.externalLibraries.map((l) => `${l.name}:${l.addressHash.slice(2)}`).join(';'),
      LicenseType: verified.licenseType ?? '',
      Proxy: implementation === null ? '0' : '1',
      Implementation: implementation ?? '',
      SwarmSource: '',
    },
  ]);
};

/** Hex without 0x, as the tools send constructor arguments; null for none. */
function constructorArguments(params: ActionParams): `0x${string}` | null | ActionAnswer {
  const given = params.get('constructorArguments') ?? params.get('constructorArguements');
  if (given === undefined || given === '') return null;
  const digits = given.replace(/^0x/, '');
  return /^([0-9a-fA-F]{2})*$/.test(digits) ? (`0x${digits.toLowerCase()}` as `0x${string}`) : failure('Invalid constructor arguments');
}

/** The submission verifysourcecode describes, in the engine's terms; or the answer that refuses it. */
function verificationRequest(params: ActionParams): VerificationRequest | ActionAnswer {
  const codeformat = params.get('codeformat');
  if (codeformat === undefined) return failure('Missing codeformat field');
  const source = params.get('sourceCode');
  const compilerVersion = params.get('compilerversion');
  if (source === undefined || source === '') return failure("Missing 'sourceCode'");
  if (compilerVersion === undefined || compilerVersion === '') return failure("Missing 'compilerversion'");
  if (source.includes('\0')) return failure('Invalid sourceCode');
  const args = constructorArguments(params);
  if (args !== null && typeof args !== 'string') return args;
  const contractName = params.get('contractname') || null;
  const licenseType = null;
  switch (codeformat) {
    case 'solidity-standard-json-input':
      return {
        method: 'standard-input',
        compilerVersion,
        input: source,
        contractName,
        constructorArgs: args,
        autodetectConstructorArgs: args === null,
        licenseType,
      };
    case 'solidity-single-file': {
      const optimization = params.get('optimizationUsed');
      if (optimization === undefined) return failure("Missing 'optimizationUsed'");
      const runs = Number(params.get('runs') ?? '200');
      return {
        method: 'flattened-code',
        compilerVersion,
        sourceCode: source,
        contractName,
        optimizationEnabled: optimization === '1' || optimization === 'true',
        optimizationRuns: Number.isSafeInteger(runs) && runs >= 0 ? runs : 200,
        evmVersion: params.get('evmversion') || 'default',
        libraries: {},
        constructorArgs: args,
        autodetectConstructorArgs: args === null,
        isYul: false,
        licenseType,
      };
    }
    default:
      return failure(`Unsupported codeformat: ${codeformat}`);
  }
}

const verifysourcecode: Action = async (params, { db, verification }: ApiContext) => {
  const address = addressOf(params, 'contractaddress');
  if (typeof address !== 'string') return address;
  const request = verificationRequest(params);
  if (!('method' in request)) return request;
  if (verification === null) return failure('Contract verification is not available on this server');
  const contract = await findSmartContract(db, address);
  if (contract === null || contract.runtimeCode === null || contract.runtimeCode === '0x') return failure(notAContract, notAContract);
  if (contract.verified?.address.toLowerCase() === address && contract.verified.match === 'full') {
    return failure(alreadyVerified, alreadyVerified);
  }
  return ok(await verification.submit(address, request));
};

const checkverifystatus: Action = async (params, { db }) => {
  const guid = params.get('guid');
  if (guid === undefined || guid === '') return failure("Query parameter 'guid' is required");
  const job = await findVerificationJob(db, guid);
  if (job === null) return ok('Unknown UID');
  return ok(job.status === 'pending' ? 'Pending in queue' : job.status === 'success' ? 'Pass - Verified' : 'Fail - Unable to verify');
};

const maxCreationAddresses = 10;

const getcontractcreation: Action = async (params, { db }) => {
  const given = params.get('contractaddresses');
  if (given === undefined || given === '') return failure("Query parameter 'contractaddresses' is required");
  const parts = given.split(',');
  if (parts.length > maxCreationAddresses) return failure(`Too many contract addresses: at most ${maxCreationAddresses}`);
  const addresses = parts.map((part) => parseAddress(part.trim()));
  if (addresses.some((a) => a === null)) return failure('Invalid address hash');
  const found = await Promise.all(
    (addresses as Address[]).map(async (address) => ({ address, creation: await findContractCreation(db, address) })),
  );
  const known = found.filter((f) => f.creation !== null);
  if (known.length === 0) return failure('No data found', null);
  return ok(
    known.map(({ address, creation }) => ({
      contractAddress: address,
      contractCreator: creation!.deployer,
      txHash: creation!.transactionHash,
      blockNumber: String(creation!.blockNumber),
      timestamp: String(creation!.timestamp),
      contractFactory: creation!.factory ?? '',
      creationBytecode: creation!.creationCode,
    })),
  );
};

export const contractActions: ModuleActions = {
  getabi,
  getsourcecode,
  verifysourcecode,
  checkverifystatus,
  getcontractcreation,
  listcontracts: listAction(listcontracts),
  verifyproxycontract,
  checkproxyverification,
};
