import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'yaml';
import { apiReferencePath, openApiDocumentPath } from '../../src/api/openapi.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { type Document, compareDocuments } from '../support/openapi-comparison.js';
import { type OpenApiDocument, applyDifferences, documentDifferences } from '../support/openapi-differences.js';
import { postOnlyPaths, servedPaths } from '../support/served-paths.js';
import { type RunningApi, startApi } from './http.js';

/**
 * The OpenAPI document Sextant generates from its routes' schemas, fetched over HTTP: valid OpenAPI 3,
 * and the same as Blockscout 11.2.7's for every path both have (paths, parameters, members of the
 * answers) but for the differences openapi-differences.ts lists. And the reference page, served whole
 * from this host.
 */

const blockscoutUrl = new URL('../fixtures/blockscout-openapi/blockscout-11.2.7-ethereum-swagger.yaml', import.meta.url);

let db: TestDatabase;
let api: RunningApi;
let document: Document;

before(async () => {
  db = await createTestDatabase();
  api = await startApi(db.pool);
  const response = await fetch(api.base + openApiDocumentPath);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  document = (await response.json()) as Document;
});

after(async () => {
  await api?.close();
  await db?.drop();
});

test('the document is valid OpenAPI 3 and describes every GET route and every form the API serves, and nothing else', async () => {
  const result = await new Validator().validate(structuredClone(document) as unknown as Parameters<Validator['validate']>[0]);
  assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 2));
  assert.equal(result.valid, true);
  assert.match((document as { openapi?: string }).openapi ?? '', /^3\./);
  const documented = Object.keys(document.paths).map((path) => path.replace(/\{([^}]+)\}/g, ':$1'));
  assert.deepEqual(documented.sort(), [...servedPaths(), ...postOnlyPaths()].sort());
  for (const [path, item] of Object.entries(document.paths)) {
    const operation = item.get ?? item.post;
    assert.ok(operation?.responses?.['200']?.content?.['application/json']?.schema, `${path}: no schema for its 200 answer`);
  }
});

test("the document matches Blockscout 11.2.7's on every path both have, but for the listed differences", () => {
  const blockscout = parse(readFileSync(blockscoutUrl, 'utf8')) as Document;
  applyDifferences(blockscout as unknown as OpenApiDocument);
  const comparison = compareDocuments(document, blockscout);

  assert.deepEqual(comparison.onlySextant.sort(), Object.keys(documentDifferences.ownPaths).sort(), "paths not in Blockscout's document");
  assert.ok(comparison.shared.length >= 30, `only ${comparison.shared.length} paths in common`);
  const listedQuery = (blockscoutPath: string, side: 'onlySextant' | 'onlyBlockscout'): string[] =>
    documentDifferences.query.filter((entry) => entry.paths.includes(blockscoutPath)).flatMap((entry) => entry[side]);
  const nowhere = Object.keys(documentDifferences.queryNowhere);
  for (const shared of comparison.shared) {
    const [ours, theirs] = shared.pathParameters;
    assert.equal(ours, theirs, `${shared.path}: ${ours} path parameters, Blockscout's ${shared.blockscoutPath} has ${theirs}`);
    assert.deepEqual(
      shared.queryOnlySextant,
      listedQuery(shared.blockscoutPath, 'onlySextant').sort(),
      `${shared.path}: query only Sextant takes`,
    );
    assert.deepEqual(
      shared.queryOnlyBlockscout.filter((name) => !nowhere.includes(name)),
      listedQuery(shared.blockscoutPath, 'onlyBlockscout').sort(),
      `${shared.path}: query only Blockscout takes`,
    );
  }
  // Every listed query difference is of a path both have: the list cannot outlive what it excuses.
  const sharedPaths = comparison.shared.map((shared) => shared.blockscoutPath);
  assert.deepEqual(
    documentDifferences.query.flatMap((entry) => entry.paths).filter((path) => !sharedPaths.includes(path)),
    [],
  );

  assert.deepEqual([...comparison.membersOnlySextant].sort(), [], "members Sextant sends that Blockscout's schema does not list");
  assert.deepEqual(
    [...comparison.membersOnlyBlockscout].sort(),
    documentDifferences.membersNotSent.flatMap((entry) => entry.members).sort(),
    "members of Blockscout's schemas that Sextant's answers leave out",
  );
});

test('the reference page and everything it loads come from this host', async () => {
  const page = await fetch(`${api.base}${apiReferencePath}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  const loaded = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
  assert.ok(
    loaded.some((url) => url.endsWith('swagger-ui-bundle.js')),
    `the page loads no Swagger UI bundle: ${loaded.join(', ')}`,
  );
  for (const url of loaded) {
    assert.doesNotMatch(url, /^(https?:)?\/\//, `${url}: loaded from another host`);
    const asset = await fetch(new URL(url, `${api.base}${apiReferencePath}/`));
    assert.equal(asset.status, 200, `${url}: ${asset.status}`);
    assert.ok((await asset.arrayBuffer()).byteLength > 0, `${url}: empty`);
  }
  // The page's script fetches the document from beside it, and nothing validates it on another host.
  const initializer = await (await fetch(`${api.base}${apiReferencePath}/static/swagger-initializer.js`)).text();
  assert.match(initializer, /resolveUrl\('\.\/json'\)/);
  assert.match(initializer, /validatorUrl: null/);
  const beside = await fetch(`${api.base}${apiReferencePath}/json`);
  assert.deepEqual(await beside.json(), document);
});
