import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { findTokenCounters } from '../../store/read/tokens.js';
import { NotFoundError } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { TokenParams } from '../token-pages.js';

const Response = Type.Object({ token_holders_count: Type.String(), transfers_count: Type.String() });

/** A token's counters, decimal strings as Blockscout types them, read from the counters the token ledger keeps. */
export const tokenCountersRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/tokens/:address_hash/counters', { schema: { params: TokenParams, response: { 200: Response } } }, async (request) => {
    const counters = await findTokenCounters(db, request.params.address_hash.toLowerCase() as Hex);
    if (counters === null) throw new NotFoundError();
    return {
      token_holders_count: (counters.holdersCount < 0n ? 0n : counters.holdersCount).toString(),
      transfers_count: counters.transfersCount.toString(),
    };
  });
};
