import type { Address } from '../../model.js';
import { findProxyCheck } from '../../store/read/etherscan-contracts.js';
import { findSmartContract } from '../../store/read/smart-contracts.js';
import type { Action } from './action.js';
import { failure, ok } from './envelope.js';
import { addressOf } from './params.js';

/**
 * verifyproxycontract and checkproxyverification, as Blockscout answers them: a verified contract is
 * checked again for a proxy by the proxy stage (its mark in proxy_marks), and the GUID handed out (the
 * address and the mark, in hex) finds the check's outcome in the database, so it survives a restart.
 */

const notFound = 'Smart-contract not found or is not verified';

const guidPattern = /^([0-9a-f]{40})([0-9a-f]{1,15})$/;

const guidOf = (address: Address, mark: bigint): string => `${address.slice(2)}${mark.toString(16)}`;

function parseGuid(guid: string): { address: Address; mark: bigint } | null {
  const parts = guidPattern.exec(guid.toLowerCase());
  return parts === null ? null : { address: `0x${parts[1]}` as Address, mark: BigInt(`0x${parts[2]}`) };
}

export const verifyproxycontract: Action = async (params, { db, proxyChecks }) => {
  const address = addressOf(params, 'address');
  if (typeof address !== 'string') return address;
  const contract = await findSmartContract(db, address);
  // The proxy's own verification, as Blockscout requires; a bytecode twin's does not count.
  if (contract?.verified?.address.toLowerCase() !== address) return failure(notFound);
  if (proxyChecks === null) return failure('Proxy verification is not available on this server');
  return ok(guidOf(address, await proxyChecks.request(address)));
};

export const checkproxyverification: Action = async (params, { db }) => {
  const guid = params.get('guid');
  if (guid === undefined || guid === '') return failure("Query parameter 'guid' is required");
  const asked = parseGuid(guid);
  const check = asked === null ? ({ state: 'unknown' } as const) : await findProxyCheck(db, asked.address, asked.mark);
  switch (check.state) {
    case 'unknown':
      return ok('Unknown UID');
    case 'pending':
      return ok('Verification in progress');
    case 'none':
      return failure('NOTOK', 'A corresponding implementation contract was unfortunately not detected for the proxy address.');
    case 'proxy': {
      const proxy = asked!.address;
      const [only] = check.implementations;
      return ok(
        check.implementations.length === 1
          ? `The proxy's (${proxy}) implementation contract is found at ${only} and is successfully updated.`
          : `The proxy's (${proxy}) implementation contracts are found at ${JSON.stringify(check.implementations)} and they've been successfully updated.`,
      );
    }
  }
};
