import type { VerificationErrorField, VerificationOutcome } from './types.js';

/** The words Blockscout's verification form shows for each failure. */
export const messages = {
  noMatch: 'No contract could be verified with provided data',
  wrongName: 'Wrong contract name, please try again.',
  constructorArguments: 'Constructor arguments do not match, please try again.',
  invalidJson: 'Invalid JSON file.',
  notAContract: 'The address is not a smart contract',
  emptySource: 'Empty contract source code.',
} as const;

export function failure(field: VerificationErrorField, ...texts: string[]): VerificationOutcome & { ok: false } {
  return { ok: false, errors: { [field]: texts } };
}
