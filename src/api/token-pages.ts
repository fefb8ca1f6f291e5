import { Type } from '@sinclair/typebox';
import type { Hex } from '../model.js';
import type { Db } from '../store/read/sql.js';
import { type TokenItem, findToken } from '../store/read/tokens.js';
import { NotFoundError } from './errors.js';
import { AddressHashParam } from './schemas.js';

/** What the token and token-instance pages share: their path parameters and the token they are about. */

export const TokenParams = Type.Object({ address_hash: AddressHashParam });

export const InstanceParams = Type.Object({
  address_hash: AddressHashParam,
  id: Type.String({ pattern: '^[0-9]{1,78}$', description: 'a token id: a non-negative integer' }),
});

/** The indexed token at the path's address; an address that is no indexed token is a 404. */
export async function requireToken(db: Db, addressHash: string): Promise<TokenItem> {
  const token = await findToken(db, addressHash.toLowerCase() as Hex);
  if (token === null) throw new NotFoundError();
  return token;
}

/** The same for the pages of one NFT id: a fungible (ERC-20) token has none, a 404 as E4 answers. */
export async function requireNftToken(db: Db, addressHash: string): Promise<TokenItem> {
  const token = await requireToken(db, addressHash);
  if (token.type === 'ERC-20') throw new NotFoundError();
  return token;
}
