import { type ContractListFilter, listContractsPage } from '../../store/read/etherscan-contracts.js';
import type { Action } from './action.js';
import { errorBody, failure, ok } from './envelope.js';
import { maxResultWindow, parseCount } from './params.js';

/**
 * listcontracts: the contracts, every one or those verified, unverified or with empty code, as
 * Blockscout lists them: `page` (from 1) of `offset` rows (10 by default; a malformed value, or one
 * past 10,000, is ignored for its default). Sextant bounds page × offset as the other lists do.
 */

const defaultPageSize = 10;

/** Blockscout's names and numbers of the filters. */
const filters: Readonly<Record<string, ContractListFilter>> = { verified: 'verified', unverified: 'unverified', empty: 'empty' };
const filterNumbers: readonly ContractListFilter[] = ['verified', 'unverified', 'empty'];

function contractFilter(given: string | undefined): ContractListFilter | undefined {
  if (given === undefined) return null;
  if (Object.hasOwn(filters, given)) return filters[given];
  const number = /^[0-9]{1,3}$/.test(given) ? Number(given) : 0;
  return number >= 1 && number <= filterNumbers.length ? filterNumbers[number - 1] : undefined;
}

const positive = (value: string | undefined): number | null => {
  const count = parseCount(value);
  return count !== null && count > 0 ? count : null;
};

export const listcontracts: Action = async (params, { db }) => {
  const given = params.get('filter');
  const filter = contractFilter(given);
  if (filter === undefined) {
    // Blockscout's words, which name only the first two filters it accepts.
    return {
      httpStatus: 400,
      body: errorBody(`${given} is not a valid value for \`filter\`. Please use one of: verified, unverified, 1, 2.`),
    };
  }
  const page = positive(params.get('page')) ?? 1;
  const offset = positive(params.get('offset'));
  const pageSize = offset !== null && offset <= maxResultWindow ? offset : defaultPageSize;
  if (page * pageSize > maxResultWindow) {
    return failure(`Result window is too large, PageNo x Offset size must be less than or equal to ${maxResultWindow}`);
  }
  const contracts = await listContractsPage(db, filter, pageSize, (page - 1) * pageSize);
  return ok(
    contracts.map(({ address, verified }) =>
      verified === null
        ? { Address: address, ABI: 'Contract source code not verified' }
        : {
            Address: address,
            ABI: JSON.stringify(verified.abi ?? []),
            ContractName: verified.name,
            CompilerVersion: verified.compilerVersion,
            OptimizationUsed: verified.optimizationEnabled ? '1' : '0',
          },
    ),
  );
};
