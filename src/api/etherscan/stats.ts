import { sumCoinBalances } from '../../store/read/coin-balances.js';
import { findToken } from '../../store/read/tokens.js';
import type { Action, ModuleActions } from './action.js';
import { failure, ok } from './envelope.js';
import { parseAddress } from './params.js';

/** The stats module: the coin's and a token's supply, and the coin's price, which Sextant does not read (null). */

const tokensupply: Action = async (params, { db }) => {
  const given = params.get('contractaddress');
  if (given === undefined) return failure("Query parameter 'contractaddress' is required");
  const token = parseAddress(given);
  if (token === null) return failure('Invalid contractaddress format');
  const found = await findToken(db, token);
  if (found === null) return failure('contractaddress not found');
  return ok(found.totalSupply?.toString() ?? null);
};

/** The coin's supply as Blockscout's ethsupply sums it: every address's latest balance read, in wei. */
const ethsupply: Action = async (_params, { db }) => ok((await sumCoinBalances(db)).toString());

/** No price source: the fields Etherscan clients read, each null. */
const coinprice: Action = async () => ok({ coin_btc: null, coin_btc_timestamp: null, coin_usd: null, coin_usd_timestamp: null });
const ethprice: Action = async () => ok({ ethbtc: null, ethbtc_timestamp: null, ethusd: null, ethusd_timestamp: null });

export const statsActions: ModuleActions = { tokensupply, ethsupply, coinprice, ethprice };
