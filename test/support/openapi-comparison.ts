/**
 * Compares Sextant's generated OpenAPI document with Blockscout's, path by path: which paths both
 * have, their query parameters, and the member names of their 200 answers. A member difference is
 * named by the Blockscout schema that holds it (`Address.metadata`), or by the path where Blockscout
 * writes the object inline (`/v2/stats.gas_prices`), so that one difference of a schema used by many
 * answers is listed once.
 */

type Schema = Record<string, any>;

interface Parameter {
  in: string;
  name: string;
}

interface Operation {
  parameters?: Parameter[];
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

export interface Document {
  components?: { schemas?: Record<string, Schema> };
  paths: Record<string, { get?: Operation; post?: Operation }>;
}

/** A path template with its parameters' names left out: `/api/v2/blocks/{}`. */
export const pathShape = (template: string): string => template.replace(/\{[^}]+\}/g, '{}').replace(/(.)\/$/, '$1');

export interface PathComparison {
  /** Sextant's template, e.g. /api/v2/blocks/{block_number_or_hash}. */
  path: string;
  /** Blockscout's template, e.g. /v2/blocks/{block_hash_or_number_param}. */
  blockscoutPath: string;
  /** Path parameters: Sextant's count and Blockscout's (names differ, their places are what a client fills). */
  pathParameters: [number, number];
  queryOnlySextant: string[];
  queryOnlyBlockscout: string[];
}

export interface Comparison {
  /** Sextant's paths Blockscout's document has, compared. */
  shared: PathComparison[];
  /** Sextant's paths Blockscout's document does not have. */
  onlySextant: string[];
  /** `Schema.member` names that Sextant's answers have and Blockscout's schema does not. */
  membersOnlySextant: Set<string>;
  /** `Schema.member` names that Blockscout's schema has and Sextant's answers do not. */
  membersOnlyBlockscout: Set<string>;
}

const jsonSchemaOf = (operation: Operation | undefined): Schema | undefined =>
  operation?.responses?.['200']?.content?.['application/json']?.schema;

const queryNames = (operation: Operation | undefined): string[] =>
  (operation?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);

/** Blockscout's schema behind a reference, and the component name it gives the members found there. */
function resolve(schema: Schema, document: Document, owner: string): { schema: Schema; owner: string } {
  let current = schema;
  let name = owner;
  while (typeof current.$ref === 'string') {
    name = current.$ref.split('/').pop()!;
    current = document.components?.schemas?.[name] ?? {};
  }
  return { schema: current, owner: name };
}

/** The members an object schema (or the object branches of a union) lists, by name. */
function members(schema: Schema, document: Document, owner: string): Map<string, { schema: Schema; owner: string }> {
  const { schema: resolved, owner: named } = resolve(schema, document, owner);
  const found = new Map<string, { schema: Schema; owner: string }>();
  for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])]) {
    for (const [name, member] of members(branch, document, named)) found.set(name, member);
  }
  for (const [name, member] of Object.entries<Schema>(resolved.properties ?? {})) found.set(name, { schema: member, owner: named });
  return found;
}

/** The array's items schema, through references and unions. */
function itemsOf(schema: Schema, document: Document, owner: string): { schema: Schema; owner: string } | undefined {
  const { schema: resolved, owner: named } = resolve(schema, document, owner);
  if (resolved.items !== undefined) return { schema: resolved.items, owner: named };
  for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])]) {
    const items = itemsOf(branch, document, named);
    if (items !== undefined) return items;
  }
  return undefined;
}

function compareMembers(
  ours: Schema,
  theirs: Schema,
  documents: { ours: Document; theirs: Document },
  owner: string,
  visiting: Set<string>,
  result: Pick<Comparison, 'membersOnlySextant' | 'membersOnlyBlockscout'>,
): void {
  const theirMembers = members(theirs, documents.theirs, owner);
  const { owner: theirOwner } = resolve(theirs, documents.theirs, owner);
  const ourMembers = members(ours, documents.ours, owner);
  // A free-form object in Blockscout's schema (next_page_params, search results): nothing to compare its members with.
  if (theirMembers.size === 0) {
    const ourItems = itemsOf(ours, documents.ours, owner);
    const theirItems = itemsOf(theirs, documents.theirs, owner);
    if (ourItems && theirItems) compareMembers(ourItems.schema, theirItems.schema, documents, theirItems.owner, visiting, result);
    return;
  }
  if (visiting.has(theirOwner)) return;
  const inside = new Set(visiting).add(theirOwner);
  for (const name of ourMembers.keys()) if (!theirMembers.has(name)) result.membersOnlySextant.add(`${theirOwner}.${name}`);
  for (const [name, their] of theirMembers) {
    const our = ourMembers.get(name);
    if (our === undefined) result.membersOnlyBlockscout.add(`${their.owner}.${name}`);
    else compareMembers(our.schema, their.schema, documents, their.owner, inside, result);
  }
}

/** Compares every GET path of `ours` (served under `/api`) with Blockscout's document of the same shape. */
export function compareDocuments(ours: Document, theirs: Document): Comparison {
  const theirPaths = new Map(Object.keys(theirs.paths).map((template) => [pathShape(`/api${template}`), template]));
  const comparison: Comparison = { shared: [], onlySextant: [], membersOnlySextant: new Set(), membersOnlyBlockscout: new Set() };
  for (const [path, item] of Object.entries(ours.paths)) {
    const blockscoutPath = theirPaths.get(pathShape(path));
    const their = blockscoutPath === undefined ? undefined : theirs.paths[blockscoutPath]?.get;
    if (blockscoutPath === undefined || their === undefined) {
      comparison.onlySextant.push(path);
      continue;
    }
    const ourQuery = queryNames(item.get);
    const theirQuery = queryNames(their);
    comparison.shared.push({
      path,
      blockscoutPath,
      pathParameters: [
        (item.get?.parameters ?? []).filter((p) => p.in === 'path').length,
        (their.parameters ?? []).filter((p) => p.in === 'path').length,
      ],
      queryOnlySextant: ourQuery.filter((name) => !theirQuery.includes(name)).sort(),
      queryOnlyBlockscout: theirQuery.filter((name) => !ourQuery.includes(name)).sort(),
    });
    const ourBody = jsonSchemaOf(item.get);
    const theirBody = jsonSchemaOf(their);
    if (ourBody && theirBody) compareMembers(ourBody, theirBody, { ours, theirs }, blockscoutPath, new Set(), comparison);
  }
  return comparison;
}
