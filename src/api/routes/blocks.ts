import { Type } from '@sinclair/typebox';
import { type BlockListKind, listBlocks } from '../../store/read/blocks.js';
import { parseChoice, requireValid } from '../filters.js';
import { blocksValidatedKeyset, fetchSize, nextPageParamsSchema } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { headChanges } from '../shared-answers.js';
import { BlockSchema, blockView } from '../views/block.js';

const blockTypes = ['block', 'uncle', 'reorg'] as const;

const Querystring = Type.Object({
  type: Type.Optional(Type.String({ description: `one of ${blockTypes.join(', ')}` })),
  ...blocksValidatedKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(BlockSchema),
  next_page_params: nextPageParamsSchema(blocksValidatedKeyset),
});

const kinds: Record<(typeof blockTypes)[number], BlockListKind> = { block: 'consensus', reorg: 'lost', uncle: 'uncle' };

/**
 * The blocks, highest first: type=block (the default) the consensus chain, type=reorg the blocks that
 * lost consensus in a reorg, type=uncle the uncles the consensus blocks list.
 */
export const blocksRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/blocks',
    {
      schema: { querystring: Querystring, response: { 200: Response } },
      config: { sharedAnswer: { changedBy: [...headChanges, 'traced', 'verification'], defaults: { type: 'block' } } },
    },
    async (request) => {
      const { type } = requireValid({ type: parseChoice('type', request.query.type, blockTypes, 'block') });
      const after = blocksValidatedKeyset.parse(request.query);
      const { items, nextPageParams } = blocksValidatedKeyset.page(await listBlocks(db, kinds[type], after, fetchSize));
      return { items: items.map(blockView), next_page_params: nextPageParams };
    },
  );
};
