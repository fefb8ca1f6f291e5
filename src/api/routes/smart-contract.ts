import { Type } from '@sinclair/typebox';
import type { Address } from '../../model.js';
import { findSmartContract } from '../../store/read/smart-contracts.js';
import { NotFoundError } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import { SmartContractSchema, smartContractView } from '../views/smart-contract.js';

const Params = Type.Object({ address_hash: AddressHashParam });

/** A contract's code, and its verified source and ABI once verified (its own, or its bytecode twin's); 404 for an address that is no contract. */
export const smartContractRoute: ApiRoute = (app, { db }) => {
  const schema = { params: Params, response: { 200: SmartContractSchema } };
  app.get('/api/v2/smart-contracts/:address_hash', { schema }, async (request) => {
    const address = request.params.address_hash.toLowerCase() as Address;
    const item = await findSmartContract(db, address);
    if (item === null) throw new NotFoundError();
    return smartContractView(address, item);
  });
};
