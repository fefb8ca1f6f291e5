import type pg from 'pg';
import { buildApi } from '../../src/api/server.js';

/** An API server listening on a free port of 127.0.0.1, queried over real HTTP. */
export interface RunningApi {
  base: string;
  get(path: string): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // Parsed JSON; tests assert its shape.
  body: any;
}

export async function startApi(pool: pg.Pool): Promise<RunningApi> {
  const app = await buildApi({ pool });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the API is not listening on a TCP port');
  const base = `http://127.0.0.1:${address.port}`;
  return {
    base,
    async get(path) {
      const response = await fetch(base + path);
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, body: text === '' ? undefined : JSON.parse(text) };
    },
    close: () => app.close(),
  };
}

export const queryString = (params: Record<string, unknown>): string => {
  const entries = Object.entries(params).map(([k, v]) => [k, String(v)]);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
};

export interface CollectedList {
  items: any[];
  pageSizes: number[];
  /** next_page_params of every page but the last. */
  nextPageParams: Record<string, unknown>[];
}

/**
 * Follows a list to its end the way a client does: next_page_params sent back verbatim with the
 * client's own filters. Fails on a non-200 page or a next_page_params that is not null on the last page.
 */
export async function collectList(api: RunningApi, path: string, filters: Record<string, string> = {}): Promise<CollectedList> {
  const collected: CollectedList = { items: [], pageSizes: [], nextPageParams: [] };
  let next: Record<string, unknown> | null = {};
  for (let page = 0; next !== null; page++) {
    if (page > 1000) throw new Error(`${path} does not end`);
    const response = await api.get(path + queryString({ ...filters, ...next }));
    if (response.status !== 200) throw new Error(`${path} page ${page}: ${response.status} ${response.text}`);
    collected.items.push(...response.body.items);
    collected.pageSizes.push(response.body.items.length);
    next = response.body.next_page_params;
    if (next !== null) collected.nextPageParams.push(next);
  }
  return collected;
}
