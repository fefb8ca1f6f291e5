import type { ApiRoute } from '../route.js';
import { TokenParams, requireToken } from '../token-pages.js';
import { TokenSchema, tokenView } from '../views/token.js';

/** A token: its contract's name, symbol, decimals and supply as read, its type and holders count. */
export const tokenRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/tokens/:address_hash', { schema: { params: TokenParams, response: { 200: TokenSchema } } }, async (request) =>
    tokenView(await requireToken(db, request.params.address_hash)),
  );
};
