import { Type } from '@sinclair/typebox';
import { listBlocks } from '../../store/read/blocks.js';
import type { ApiRoute } from '../route.js';
import { headChanges } from '../shared-answers.js';
import { BlockSchema, blockView } from '../views/block.js';

/** How many blocks the home page shows, as Blockscout. */
const homeBlocks = 4;

/** The home page's newest consensus blocks: the head of GET /api/v2/blocks. */
export const mainPageBlocksRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/main-page/blocks',
    {
      schema: { response: { 200: Type.Array(BlockSchema) } },
      // Traces bring the blocks' rewards; a verification, their miners' names.
      config: { sharedAnswer: { changedBy: [...headChanges, 'traced', 'verification'] } },
    },
    async () => (await listBlocks(db, 'consensus', null, homeBlocks)).map(blockView),
  );
};
