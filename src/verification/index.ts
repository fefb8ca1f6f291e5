// Contract verification: compiles the sources a user gives (in a child process per compiler) and
// matches the result against the contract's code on chain, with lib-sourcify.
export { createVerifier } from './verifier.js';
export { VerifierBusyError } from './types.js';
export type {
  ChainView,
  CompilerList,
  ContractCreation,
  VerificationErrorField,
  VerificationOutcome,
  VerificationRequest,
  VerifiedContract,
  Verifier,
  VerifierOptions,
} from './types.js';
