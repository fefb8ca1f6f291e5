import { Type } from '@sinclair/typebox';
import { readBlockDetail } from '../../store/read/blocks.js';
import { NotFoundError } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { BlockNumberOrHashParam } from '../schemas.js';
import { BlockDetailSchema, blockDetailView } from '../views/block.js';
import { resolveBlock } from './block-withdrawals.js';

const Params = Type.Object({ block_number_or_hash: BlockNumberOrHashParam });

/**
 * A block's page. By hash: any block, a lost one too; by number: the consensus block (a height whose
 * block lost consensus is a 404 that says so, with the lost block's hash).
 */
export const blockRoute: ApiRoute = (app, { db }) => {
  const schema = { params: Params, response: { 200: BlockDetailSchema } };
  app.get('/api/v2/blocks/:block_number_or_hash', { schema }, async (request) => {
    const { hash } = await resolveBlock(db, request.params.block_number_or_hash);
    const block = await readBlockDetail(db, hash);
    // Retracted between the two reads: gone, as a later request would find it.
    if (block === null) throw new NotFoundError();
    return blockDetailView(block);
  });
};
