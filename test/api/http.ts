import type { Db } from '../../src/store/read/sql.js';
import { type ApiOptions, buildApi } from '../../src/api/server.js';
import { type ApiClient, apiClient } from '../support/http-client.js';

export { type ApiResponse, type CollectedList, assertFullPages, collectList, queryString } from '../support/http-client.js';

/** An API server listening on a free port of 127.0.0.1, queried over real HTTP. */
export interface RunningApi extends ApiClient {
  close(): Promise<void>;
}

export async function startApi(pool: Db, options: Omit<ApiOptions, 'pool'> = {}): Promise<RunningApi> {
  const app = await buildApi({ ...options, pool });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the API is not listening on a TCP port');
  return { ...apiClient(`http://127.0.0.1:${address.port}`), close: () => app.close() };
}
