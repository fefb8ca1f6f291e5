/**
 * `node --import tsx scripts/render-api-docs.ts <base URL> [chromium path]`: renders a running Sextant's
 * /api-docs in headless Chromium with every request to another host refused, and prints what it
 * found: the page's title, the operations it lists, the requests it made, those it was refused, and
 * any script error. Needs a Chromium (Debian's `chromium` package: /usr/bin/chromium); exits 1 when
 * the page lists no operation, asked another host for anything, or failed.
 */
import { chromium } from 'playwright-core';

const base = process.argv[2];
if (base === undefined) throw new Error('usage: render-api-docs.ts <base URL> [chromium path]');
const browser = await chromium.launch({ executablePath: process.argv[3] ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  const local: string[] = [];
  const refused: string[] = [];
  const pageErrors: string[] = [];
  const baseHost = new URL(base).host;
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.host === baseHost) {
      local.push(url.pathname);
      return route.continue();
    }
    refused.push(url.href);
    return route.abort();
  });
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  await page.goto(`${base}/api-docs`, { waitUntil: 'networkidle' });
  await page.waitForSelector('.opblock', { timeout: 30_000 });
  const operations = await page.locator('.opblock').count();
  const title = (await page.locator('.info .title').first().innerText()).replace(/\s+/g, ' ');
  console.log(JSON.stringify({ title, operations, requests: local, refused, pageErrors }, null, 1));
  if (operations === 0 || refused.length > 0 || pageErrors.length > 0) process.exitCode = 1;
} finally {
  await browser.close();
}
