import { readIndexingStatus } from '../indexing-status.js';
import type { ApiRoute } from '../route.js';
import { headChanges } from '../shared-answers.js';
import { IndexingStatusSchema } from '../views/indexing-status.js';

/** How much of the chain is indexed, blocks and internal transactions (see readIndexingStatus). */
export const mainPageIndexingStatusRoute: ApiRoute = (app, context) => {
  app.get(
    '/api/v2/main-page/indexing-status',
    { schema: { response: { 200: IndexingStatusSchema } }, config: { sharedAnswer: { changedBy: [...headChanges, 'traced'] } } },
    async () => readIndexingStatus(context),
  );
};
