import assert from 'node:assert/strict';
import { assertConformsToOpenApi } from './openapi-conformance.js';

/** A client of Sextant's API over real HTTP. */
export interface ApiClient {
  base: string;
  get(path: string, headers?: Record<string, string>): Promise<ApiResponse>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // Parsed JSON; tests assert its shape.
  body: any;
}

/** A client of the API served at `base` (http://host:port). */
export function apiClient(base: string): ApiClient {
  return {
    base,
    async get(path, headers) {
      const response = await fetch(base + path, { headers });
      return checkedResponse(path, response.status, response.headers, await response.text());
    },
  };
}

/** An answer, once its body is known to have the shape Blockscout's schema gives its path and status. */
export function checkedResponse(path: string, status: number, headers: Headers, text: string): ApiResponse {
  const body = text === '' ? undefined : JSON.parse(text);
  assertConformsToOpenApi(path, status, body);
  return { status, headers, text, body };
}

/** The body of a GET that must answer 200. */
export async function getOk(api: ApiClient, path: string): Promise<any> {
  const response = await api.get(path);
  assert.equal(response.status, 200, `${path}: ${response.text}`);
  return response.body;
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

/** Asserts that every page of a list but the last is full (Blockscout's pages hold 50 items). */
export function assertFullPages(list: CollectedList): void {
  for (const size of list.pageSizes.slice(0, -1)) assert.equal(size, 50);
}

/**
 * Follows a list to its end the way a client does: next_page_params sent back verbatim with the
 * client's own filters. Fails on a non-200 page or a next_page_params that is not null on the last page.
 */
export async function collectList(api: ApiClient, path: string, filters: Record<string, string> = {}): Promise<CollectedList> {
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
