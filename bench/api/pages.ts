/** What one GET of the API answered. */
export interface Fetched {
  status: number;
  body: string;
}

export async function fetchBody(baseUrl: string, path: string): Promise<Fetched> {
  const response = await fetch(`${baseUrl}${path}`);
  return { status: response.status, body: await response.text() };
}

/** The URL of the page after `path`, from the next_page_params it answered; null on the last page. */
function nextPagePath(path: string, body: string): string | null {
  const { next_page_params: next } = JSON.parse(body) as { next_page_params: Record<string, unknown> | null };
  if (next === null) return null;
  const url = new URL(path, 'http://x');
  for (const [name, value] of Object.entries(next)) url.searchParams.set(name, String(value));
  return `${url.pathname}${url.search}`;
}

export interface DeepPage {
  path: string;
  /** How many items come before it. */
  depth: number;
}

/**
 * Walks next_page_params from the first page until `depth` items are behind, and returns that page's
 * URL; on a shorter list, the deepest page there is.
 */
export async function findDeepPage(baseUrl: string, firstPath: string, depth: number): Promise<DeepPage> {
  let page: DeepPage = { path: firstPath, depth: 0 };
  while (page.depth < depth) {
    const { status, body } = await fetchBody(baseUrl, page.path);
    if (status !== 200) throw new Error(`GET ${page.path} answered ${status}: ${body.slice(0, 200)}`);
    const next = nextPagePath(page.path, body);
    if (next === null) break;
    page = { path: next, depth: page.depth + (JSON.parse(body) as { items: unknown[] }).items.length };
  }
  return page;
}
