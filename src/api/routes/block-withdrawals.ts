import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { type BlockIdentityItem, findBlockByHash, findBlockByNumber } from '../../store/read/blocks.js';
import type { Db } from '../../store/read/sql.js';
import { listBlockWithdrawals } from '../../store/read/withdrawals.js';
import { isBlockNumberFinal } from '../../store/read/finality.js';
import { cacheAsFinal } from '../caching.js';
import { NotFoundError } from '../errors.js';
import { fetchSize, nextPageParamsSchema, withdrawalsKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { BlockNumberOrHashParam } from '../schemas.js';
import { BlockWithdrawalSchema, blockWithdrawalView } from '../views/withdrawal.js';

const Params = Type.Object({ block_number_or_hash: BlockNumberOrHashParam });

const Querystring = Type.Object({ ...withdrawalsKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(BlockWithdrawalSchema),
  next_page_params: nextPageParamsSchema(withdrawalsKeyset),
});

/**
 * The block a path names. By hash: any block, consensus or not. By number: the consensus block; a
 * number whose block lost consensus is a 404 that says so, and one above the indexed head is unknown.
 */
export async function resolveBlock(db: Db, numberOrHash: string): Promise<BlockIdentityItem> {
  if (numberOrHash.startsWith('0x')) {
    const block = await findBlockByHash(db, numberOrHash.toLowerCase() as Hex);
    if (block === null) throw new NotFoundError();
    return block;
  }
  const number = BigInt(numberOrHash);
  if (number > BigInt(Number.MAX_SAFE_INTEGER)) throw new NotFoundError();
  const block = await findBlockByNumber(db, Number(number));
  if (block === null) throw new NotFoundError();
  if (!block.consensus) throw new NotFoundError({ message: 'Block lost consensus', hash: block.hash });
  return block;
}

/** E9: the withdrawals of one block, highest index first; final for a block named by hash, or deep enough below the head. */
export const blockWithdrawalsRoute: ApiRoute = (app, { db, finalityDepth }) => {
  app.get(
    '/api/v2/blocks/:block_number_or_hash/withdrawals',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request, reply) => {
      const after = withdrawalsKeyset.parse(request.query);
      const block = await resolveBlock(db, request.params.block_number_or_hash);
      const byHash = request.params.block_number_or_hash.startsWith('0x');
      if (byHash || (finalityDepth !== null && (await isBlockNumberFinal(db, block.number, finalityDepth)))) cacheAsFinal(reply);
      const { items, nextPageParams } = withdrawalsKeyset.page(await listBlockWithdrawals(db, block.hash, after, fetchSize));
      return { items: items.map(blockWithdrawalView), next_page_params: nextPageParams };
    },
  );
};
