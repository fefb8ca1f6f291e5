import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type InvalidParameter,
  InvalidParametersError,
  invalidValueDetail,
  noteInvalidParameters,
  notedInvalidParameters,
} from './errors.js';

/**
 * What every route's path and query parameters must be before its schema reads them, whatever the
 * route: Fastify's validator coerces text to numbers the way JavaScript does (`1e3`, `0x10`, `+1`,
 * ` ` and `Infinity` all pass as integers), and PostgreSQL cannot hold a NUL character in text.
 * Checked on the text as it arrived, for the parameters a route's schema declares (others are ignored).
 */

/** A plain decimal integer: no sign but a minus, no leading zero, no exponent, fraction or blank. */
const plainInteger = /^(0|-?[1-9][0-9]*)$/;

interface PropertySchema {
  type?: unknown;
  description?: string;
}

interface ObjectSchema {
  properties?: Record<string, PropertySchema | undefined>;
}

const isInteger = (schema: PropertySchema): boolean =>
  schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));

function invalidValue(name: string, schema: PropertySchema, value: unknown): InvalidParameter | null {
  // A repeated parameter arrives as an array, which the schema refuses on its own.
  if (typeof value !== 'string') return null;
  if (value.includes('\0')) {
    return { param: name, detail: invalidValueDetail(`${schema.description ?? 'a value'}, without NUL characters`, value) };
  }
  if (isInteger(schema) && !(plainInteger.test(value) && Number.isSafeInteger(Number(value)))) {
    return { param: name, detail: invalidValueDetail(`${schema.description ?? 'an integer'}, in plain decimal digits`, value) };
  }
  return null;
}

function invalidValues(schema: ObjectSchema | undefined, values: unknown): InvalidParameter[] {
  if (schema?.properties === undefined || typeof values !== 'object' || values === null) return [];
  const invalid: InvalidParameter[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (property === undefined || !Object.hasOwn(values, name)) continue;
    const failure = invalidValue(name, property, (values as Record<string, unknown>)[name]);
    if (failure !== null) invalid.push(failure);
  }
  return invalid;
}

function strictInputFailures(request: FastifyRequest): InvalidParameter[] {
  const schema = request.routeOptions.schema;
  return [
    ...invalidValues(schema?.params as ObjectSchema | undefined, request.params),
    ...invalidValues(schema?.querystring as ObjectSchema | undefined, request.query),
  ];
}

/**
 * Before validation, notes the parameters that fail these rules; the schema's own failures join them
 * in one 422 (see errors.ts), and a request the schema accepts is refused before its handler runs.
 */
export function registerStrictInput(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const invalid = strictInputFailures(request);
    if (invalid.length > 0) noteInvalidParameters(request, invalid);
  });
  app.addHook('preHandler', async (request) => {
    const invalid = notedInvalidParameters(request);
    if (invalid !== undefined) throw new InvalidParametersError(invalid);
  });
}
