import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { parse } from 'yaml';
import { type OpenApiDocument, applyDifferences, errorBodies } from './openapi-differences.js';
import { statsServiceErrors, statsServiceRoutes, statsServiceTemplate } from './stats-service-schema.js';

/**
 * Every answer a test receives from the API (see http-client.ts) is checked here against the
 * response schema Blockscout 11.2.7's OpenAPI document gives its path and status, after the
 * deliberate differences of openapi-differences.ts are applied to that document. An answer to a path
 * the document does not have fails: every endpoint Sextant serves under /api is one of Blockscout's,
 * but for the stats service's, checked against that service's types (stats-service-schema.ts).
 */

const documentUrl = new URL('../fixtures/blockscout-openapi/blockscout-11.2.7-ethereum-swagger.yaml', import.meta.url);
const documentId = 'blockscout';

// ajv-formats is CommonJS: imported from ESM, its function is the default export's `default`.
const addFormats = formats.default;

/** OpenAPI 3.0's `nullable: true` as JSON Schema: the schema or null. */
function toJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toJsonSchema);
  if (typeof value !== 'object' || value === null) return value;
  const converted: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key !== 'nullable' && !key.startsWith('x-')) converted[key] = toJsonSchema(member);
  }
  return (value as { nullable?: unknown }).nullable === true ? { anyOf: [{ type: 'null' }, converted] } : converted;
}

interface Operation {
  /** The document's path template, e.g. /v2/transactions/{transaction_hash_param}. */
  template: string;
  pattern: RegExp;
  /** Literal segments: where two templates match, the one with more of them is meant. */
  literals: number;
}

function load() {
  const document = parse(readFileSync(documentUrl, 'utf8')) as OpenApiDocument;
  applyDifferences(document);
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('float', true);
  ajv.addSchema({ $id: documentId, components: toJsonSchema(document.components) } as object);
  const operations: Operation[] = Object.keys(document.paths)
    .filter((template) => document.paths[template]!.get !== undefined)
    .map((template) => {
      const segments = template.replace(/\/$/, '').split('/');
      const pattern = segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/');
      return { template, pattern: new RegExp(`^/api${pattern}/?$`), literals: segments.filter((s) => !s.startsWith('{')).length };
    });
  return { document, ajv, operations };
}

let loaded: ReturnType<typeof load> | undefined;
const validators = new Map<string, ValidateFunction>();

/** Operations (document path templates) that answered 200 with a valid body in this process. */
export const validatedOperations = new Set<string>();

function operationOf(path: string): Operation | undefined {
  loaded ??= load();
  const matches = loaded.operations.filter((operation) => operation.pattern.test(path));
  return matches.sort((a, b) => b.literals - a.literals)[0];
}

/** The body schema of a status of an operation, or of an answer to a path that is none (null). */
function validatorFor(template: string | null, status: number, component?: { $ref: string }): ValidateFunction {
  const key = component?.$ref ?? `${template} ${status}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    const { document, ajv } = loaded!;
    const listed = template === null ? undefined : document.paths[template]!.get!.responses[String(status)];
    const schema = component ?? listed?.content?.['application/json']?.schema ?? errorBodies[status];
    assert.ok(schema, `${template}: Blockscout's schema gives no body for status ${status}, and neither does CONTRACT`);
    validate = ajv.compile(toJsonSchema(relativeTo(schema)) as object);
    validators.set(key, validate);
  }
  return validate;
}

/** A schema taken out of the document, its references pointed back into the document. */
function relativeTo(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(relativeTo);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${documentId}${value}` : relativeTo(value),
    ]),
  );
}

/** The Etherscan-style API (/api?module=…), which Blockscout's REST API document does not describe: its own tests check it. */
const etherscanPaths = new Set(['/api/', '/api/v1', '/api/v1/']);

/**
 * Fails (an AssertionError naming the path, the status and what differs) unless the answer's body
 * is valid under Blockscout's schema for its path and status. Paths outside /api are Sextant's own.
 */

export function assertConformsToOpenApi(requestPath: string, status: number, body: unknown): void {
  const path = requestPath.split('?')[0]!;
  if (!path.startsWith('/api/') || etherscanPaths.has(path)) return;
  const statsTemplate = statsServiceTemplate(path);
  if (statsTemplate !== undefined) {
    assertConformsToStatsService(requestPath, statsTemplate, status, body);
    return;
  }
  const operation = operationOf(path);
  if (operation === undefined) {
    assert.equal(status, 404, `${path}: no such path in Blockscout's API, yet not a 404`);
  }
  const validate = validatorFor(operation?.template ?? null, status);
  if (!validate(body)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    const against = operation?.template ?? 'the body of an unknown path';
    assert.fail(`${requestPath} (${status}) does not conform to ${against} in Blockscout's schema:\n${errors.join('\n')}`);
  }
  if (status === 200 && operation !== undefined) validatedOperations.add(operation.template);
}

/**
 * The stats service's paths (/api/v1/counters, /lines, /pages/…), which Blockscout's REST API document
 * does not describe: a 200 is checked against the service's types, an error against Sextant's own bodies.
 */
function assertConformsToStatsService(requestPath: string, template: string, status: number, body: unknown): void {
  if (status !== 200) {
    loaded ??= load();
    const validate = validatorFor(null, status);
    assert.ok(validate(body), `${requestPath} (${status}): not one of the API's error bodies: ${JSON.stringify(body)}`);
    return;
  }
  const errors = statsServiceErrors(template, body);
  assert.deepEqual(errors, [], `${requestPath} does not conform to the stats service's ${template}`);
  validatedOperations.add(template);
}

/** The document's template for a Fastify route URL (`/api/v2/x/:id` → `/v2/x/{…}`), if it has one. */
export function operationForRoute(url: string): string | undefined {
  return operationOf(url.replace(/:[a-z_]+/g, 'x'))?.template;
}

/** Fails unless every GET path the API serves under /api answered 200 with a valid body in this process. */
export function assertEveryEndpointValidated(servedPaths: readonly string[]): void {
  const unchecked = servedPaths.filter((url) => {
    if (!url.startsWith('/api/') || etherscanPaths.has(url)) return false;
    const template = statsServiceRoutes.includes(url) ? url.replace(':name', '{name}') : operationForRoute(url);
    return template === undefined || !validatedOperations.has(template);
  });
  assert.deepEqual(unchecked, [], "endpoints served but never checked against Blockscout's schema with a 200");
}

/** Fails unless `value` is valid under one of the document's component schemas (`Block`, `Transaction`, …). */
export function assertConformsToComponent(component: string, value: unknown, what: string): void {
  loaded ??= load();
  const validate = validatorFor(null, 0, { $ref: `#/components/schemas/${component}` });
  if (!validate(value)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    assert.fail(`${what} does not conform to ${component} in Blockscout's schema:\n${errors.join('\n')}`);
  }
}
