/**
 * Where Sextant's answers deliberately differ from Blockscout 11.2.7's OpenAPI document, each
 * difference once, with its reason. openapi-conformance.ts applies them to the document before
 * validating; an answer that differs in any other way fails the tests.
 */

type Schema = Record<string, any>;

export interface OpenApiDocument {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, { schema: Schema }> }> } }>;
}

interface Difference {
  reason: string;
  apply(document: OpenApiDocument): void;
}

const schemaOf = (document: OpenApiDocument, name: string): Schema => {
  const schema = document.components.schemas[name];
  if (schema === undefined) throw new Error(`Blockscout's schema has no ${name}`);
  return schema;
};

const nullableString = { type: 'string', nullable: true };
const hex = { $ref: '#/components/schemas/HexString' };
const addressHash = { $ref: '#/components/schemas/AddressHash' };

/** A member Blockscout's schema leaves out (its objects forbid members they do not list). */
const member = (schemaName: string, name: string, schema: Schema, reason: string): Difference => ({
  reason,
  apply: (document) => {
    schemaOf(document, schemaName).properties[name] = schema;
  },
});

export const differences: Difference[] = [
  member('Address', 'implementation_name', nullableString, 'the spec lists implementation_name in AddressInfo'),
  member('Block', 'extra_data', hex, 'the spec lists extra_data in Block'),
  member('Block', 'state_root', hex, 'the spec lists state_root in Block'),
  member(
    'Block',
    'uncles_hashes',
    { type: 'array', items: { $ref: '#/components/schemas/FullHash' } },
    "the spec types Block uncles_hashes an array of strings (Blockscout's schema: objects with a hash)",
  ),
  {
    reason:
      "the spec names block reward types by Blockscout's block page labels (Miner Reward, Emission Reward, Chore Reward, Uncle Reward)",
    apply: (document) => {
      schemaOf(document, 'Block').properties.rewards.items.properties.type = {
        type: 'string',
        enum: ['Miner Reward', 'Emission Reward', 'Chore Reward', 'Uncle Reward'],
      };
    },
  },
  // A block's and an address's transactions are items of Blockscout's Transaction schema, E2's of
  // TransactionResponse: the same differences hold for both.
  member('Transaction', 'actions', { type: 'array', items: { type: 'object' } }, 'the spec lists actions in Transaction'),
  member('Transaction', 'gas_limit', { type: 'integer', minimum: 0 }, 'the spec types Transaction gas_limit integer'),
  member(
    'Transaction',
    'to',
    { allOf: [{ $ref: '#/components/schemas/Address' }], nullable: true },
    'a contract creation has no recipient: to is null, as Blockscout itself sends it',
  ),
  member('TransactionResponse', 'actions', { type: 'array', items: { type: 'object' } }, 'the spec lists actions in Transaction'),
  member('TransactionResponse', 'gas_limit', { type: 'integer', minimum: 0 }, 'the spec types Transaction gas_limit integer'),
  member(
    'TransactionResponse',
    'to',
    { allOf: [{ $ref: '#/components/schemas/Address' }], nullable: true },
    'a contract creation has no recipient: to is null, as Blockscout itself sends it',
  ),
  member(
    'SignedAuthorization',
    'authority',
    { ...addressHash, nullable: true },
    'an EIP-7702 authorization whose signature recovers no signer has no authority (its status says invalid_signature)',
  ),
  {
    reason:
      "E6 answers in Parity's trace shape (CONTRACT): a selfdestruct is of type suicide, creations and selfdestructs " +
      "carry Parity's create and suicide actions and results, a frame that failed carries its error and may have no result",
    apply: (document) => {
      const entry = schemaOf(document, 'RawTrace').items;
      const create = {
        type: 'object',
        additionalProperties: false,
        required: ['creationMethod', 'from', 'gas', 'init', 'value'],
        properties: { creationMethod: { type: 'string', enum: ['create', 'create2'] }, from: addressHash, gas: hex, init: hex, value: hex },
      };
      const suicide = {
        type: 'object',
        additionalProperties: false,
        required: ['address', 'balance', 'refundAddress'],
        properties: { address: addressHash, balance: hex, refundAddress: addressHash },
      };
      const created = {
        type: 'object',
        additionalProperties: false,
        required: ['address', 'code', 'gasUsed'],
        properties: { address: addressHash, code: hex, gasUsed: hex },
      };
      entry.properties.action = { anyOf: [entry.properties.action, create, suicide] };
      entry.properties.result = { anyOf: [entry.properties.result, created], nullable: true };
      entry.properties.error = { type: 'string' };
      entry.properties.type.enum.push('suicide');
    },
  },
  member(
    'StatsResponse',
    'market_cap',
    { $ref: '#/components/schemas/FloatStringNullable' },
    'Sextant reads no market data: the market cap is not known, so null (CONTRACT), where Blockscout computes one from its price source',
  ),
  member(
    'StatsResponse',
    'average_block_time',
    { type: 'number', nullable: true },
    'the average block time is null (CONTRACT: not known) until the 100 blocks below the newest 100 are indexed, where Blockscout says 0',
  ),
];

const message = { type: 'object', additionalProperties: false, required: ['message'], properties: { message: { type: 'string' } } };

/**
 * Bodies of statuses Blockscout's schema does not list for an operation, as CONTRACT gives them:
 * a 404 for an unknown transaction, block, token or path, a 422 for any malformed parameter, a 400
 * for a request body that cannot be read, a 503 when the database or the node cannot be reached, and
 * a 500 (a message, never a stack trace) for a failure nobody foresaw.
 */
export const errorBodies: Record<number, Schema> = {
  400: message,
  404: message,
  422: { $ref: '#/components/schemas/JsonErrorResponse' },
  500: message,
  503: message,
  // Sextant's own refusals, with the same body: a request body (413), a rate limit (429), headers too large (431).
  413: message,
  429: message,
  431: message,
};

export function applyDifferences(document: OpenApiDocument): void {
  for (const difference of differences) difference.apply(document);
}
