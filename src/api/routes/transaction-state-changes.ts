import { Type } from '@sinclair/typebox';
import type { Address, Hex } from '../../model.js';
import {
  readAddressItems,
  readIndexedCoinBalancesAt,
  readLedgerTokenBalancesAt,
  readStateChangeBlock,
} from '../../store/read/state-changes.js';
import { findTransaction } from '../../store/read/transactions.js';
import { NotFoundError } from '../errors.js';
import { stateChangesPaging } from '../paging.js';
import type { ApiContext, ApiRoute } from '../route.js';
import { FullHashParam } from '../schemas.js';
import { coinAddresses, computeStateChanges, tokenBalanceKeys } from '../state-changes.js';
import { StateChangeSchema, stateChangeView } from '../views/state-change.js';

const Params = Type.Object({ transaction_hash: FullHashParam });

const Querystring = Type.Object(stateChangesPaging.querystring);

const Response = Type.Object({ items: Type.Array(StateChangeSchema), next_page_params: stateChangesPaging.response });

/**
 * Native balances at the end of a block: from the index where it tells them, from the node for the
 * rest; null where neither can (no node, or one that no longer keeps that block's state).
 */
async function coinBalancesAt(
  { db, pastCoinBalances }: Pick<ApiContext, 'db' | 'pastCoinBalances'>,
  addresses: readonly Address[],
  blockNumber: number,
): Promise<Map<Address, bigint | null>> {
  const indexed = await readIndexedCoinBalancesAt(db, addresses, blockNumber);
  const balances = new Map<Address, bigint | null>(addresses.map((a) => [a, indexed.get(a) ?? null]));
  const rest = addresses.filter((a) => !indexed.has(a));
  if (rest.length > 0 && pastCoinBalances !== null) {
    const read = await pastCoinBalances(rest, BigInt(blockNumber));
    rest.forEach((address, i) => balances.set(address, read[i] ?? null));
  }
  return balances;
}

/**
 * The state changes of a transaction, as Blockscout computes them: every native coin balance and
 * token balance the transaction moved, before and after it. None for a pool transaction.
 */
export const transactionStateChangesRoute: ApiRoute = (app, context) => {
  app.get(
    '/api/v2/transactions/:transaction_hash/state-changes',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const transaction = await findTransaction(context.db, request.params.transaction_hash.toLowerCase() as Hex);
      if (transaction === null) throw new NotFoundError();
      if (transaction.blockNumber === null) return { items: [], next_page_params: null };
      const block = await readStateChangeBlock(context.db, transaction.blockNumber, transaction.index);
      if (block === null) throw new NotFoundError();
      const parent = block.blockNumber - 1;
      const [coins, tokens] = await Promise.all([
        // Until its block is traced, the internal transactions that moved coin before it are unknown.
        block.traced ? coinBalancesAt(context, coinAddresses(block, transaction.index), parent) : new Map<Address, bigint | null>(),
        readLedgerTokenBalancesAt(context.db, tokenBalanceKeys(block, transaction.index), parent),
      ]);
      const changes = computeStateChanges(block, transaction.index, coins, tokens);
      const page = stateChangesPaging.page(changes, request.query.items_count ?? 0);
      const addresses = await readAddressItems(context.db, [...new Set(page.items.map((c) => c.address))]);
      return {
        items: page.items.map((change) => stateChangeView(change, addresses.get(change.address)!)),
        next_page_params: page.nextPageParams,
      };
    },
  );
};
