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
  {
    reason:
      "an ERC-721 state change is the list of its transfers ({direction, total}), as Blockscout's view writes it and its frontend reads it; the schema types every change a string",
    apply: (document) => {
      schemaOf(document, 'StateChange').properties.change = {
        anyOf: [
          { $ref: '#/components/schemas/IntegerStringNullable' },
          {
            type: 'array',
            items: {
              type: 'object',
              required: ['direction', 'total'],
              properties: { direction: { type: 'string', enum: ['from', 'to'] }, total: { $ref: '#/components/schemas/TotalERC721' } },
            },
          },
        ],
      };
    },
  },
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
  {
    reason:
      "a decoded value nests arrays as deep as its type does (an array of structs holding arrays is three deep), where Blockscout's " +
      'schema stops at two; Blockscout sends such values all the same',
    apply: (document) => {
      document.components.schemas.DecodedValue = {
        anyOf: [{ type: 'string' }, { type: 'array', items: { $ref: '#/components/schemas/DecodedValue' } }],
      };
      for (const name of ['DecodedInput', 'DecodedLogInput']) {
        schemaOf(document, name).properties.parameters.items.properties.value = { $ref: '#/components/schemas/DecodedValue' };
      }
    },
  },
  member(
    'StatsResponse',
    'market_cap',
    { $ref: '#/components/schemas/FloatStringNullable' },
    'without a price source the market cap is not known, so null (CONTRACT), where Blockscout computes one from its price source',
  ),
  member(
    'StatsResponse',
    'average_block_time',
    { type: 'number', nullable: true },
    'the average block time is null (CONTRACT: not known) where no interval above 0 is known, where Blockscout says 0',
  ),
  {
    reason:
      "GET /api/v2/smart-contracts/verification/config is served by Blockscout (verification_controller.ex's config) and read by " +
      "its frontend's verification form, but its document leaves the path out: its shape here is the controller's",
    apply: (document) => {
      const strings = { type: 'array', items: { type: 'string' } };
      const schema = {
        type: 'object',
        additionalProperties: false,
        required: [
          'solidity_compiler_versions',
          'solidity_evm_versions',
          'vyper_compiler_versions',
          'vyper_evm_versions',
          'verification_options',
          'is_rust_verifier_microservice_enabled',
          'license_types',
        ],
        properties: {
          solidity_compiler_versions: strings,
          solidity_evm_versions: strings,
          vyper_compiler_versions: strings,
          vyper_evm_versions: strings,
          verification_options: strings,
          is_rust_verifier_microservice_enabled: { type: 'boolean' },
          license_types: { type: 'object', additionalProperties: { type: 'integer' } },
        },
      };
      document.paths['/v2/smart-contracts/verification/config'] = {
        get: { responses: { '200': { content: { 'application/json': { schema } } } } },
      };
    },
  },
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

/**
 * Where Sextant's generated OpenAPI document (GET /openapi.json, src/api/openapi.ts) differs from
 * Blockscout's beyond the answers' differences above, which test/api/openapi-document.test.ts applies
 * to Blockscout's document first. Path parameters are compared by place, not name: the names are the
 * documents' own (`{address_hash}` here, `{address_hash_param}` there) and no client sends them.
 */
export const documentDifferences = {
  /** Sextant's paths that are not Blockscout's. */
  ownPaths: {
    '/health': "Sextant's own liveness and indexer state, outside Blockscout's API",
    '/api': 'the Etherscan-style API (?module=…&action=…), which Blockscout serves beside REST API v2 and leaves out of this document',
    '/api/v1': 'the same Etherscan-style API, at its other path',
    '/api/v1/counters': "Blockscout's stats service (blockscout-rs), served by Sextant from the figures it keeps: its counters",
    '/api/v1/lines': "the stats service's list of line charts",
    '/api/v1/lines/{name}': "the stats service's line chart, per day, week, month or year",
    '/api/v1/pages/main': "the stats service's home page figures",
    '/api/v1/pages/transactions': "the stats service's transactions page figures",
    '/api/v1/pages/contracts': "the stats service's contracts page figures",
    '/api/v2/smart-contracts/{address_hash}/verification/via/{method}':
      "the verification form's submission, which Blockscout serves (smart_contracts_api_v2_router.ex) but its document leaves out",
  } as Record<string, string>,
  /** Query parameters of Blockscout's that no Sextant path takes. */
  queryNowhere: {
    apikey: 'Sextant has no API keys: its rate limit, when on, is by client IP',
    key: 'Sextant has no restricted resources to unlock',
  } as Record<string, string>,
  /** Per Blockscout path template: the query parameters only one side lists, and why. */
  query: [
    {
      paths: ['/v2/tokens/'],
      onlySextant: [],
      onlyBlockscout: ['limit'],
      reason: 'its pages hold 50 items (CONTRACT), so it takes no limit',
    },
    {
      paths: ['/v2/addresses'],
      onlySextant: [],
      onlyBlockscout: ['transactions_count'],
      reason: "Sextant lists top accounts by balance only; transactions_count is the paging key of Blockscout's sort by it",
    },
    {
      paths: ['/v2/token-transfers'],
      onlySextant: ['batch_index', 'items_count'],
      onlyBlockscout: ['batch_block_hash', 'batch_log_index', 'batch_transaction_hash', 'index_in_batch', 'limit'],
      reason:
        "as on the other token transfer lists: Sextant's paging keys are the next_page_params it sends; " +
        'its pages hold 50 items (CONTRACT), so it takes no limit',
    },
    {
      paths: ['/v2/internal-transactions'],
      onlySextant: [],
      onlyBlockscout: ['limit'],
      reason: 'its pages hold 50 items (CONTRACT), so it takes no limit',
    },
    {
      paths: ['/v2/transactions'],
      onlySextant: ['method'],
      onlyBlockscout: [],
      reason: "E2's method filter (CONTRACT), which Blockscout reads but its document does not list",
    },
    {
      paths: ['/v2/addresses/{address_hash_param}/token-transfers', '/v2/tokens/{address_hash_param}/transfers'],
      onlySextant: ['batch_index'],
      onlyBlockscout: ['batch_block_hash', 'batch_log_index', 'batch_transaction_hash', 'index_in_batch'],
      reason:
        'Sextant pages token transfers by block_number, index and batch_index, the next_page_params it sends; ' +
        "Blockscout's batch_* keys page the transfers of its batched token events, which Sextant stores one row each",
    },
    {
      paths: ['/v2/tokens/{address_hash_param}/transfers'],
      onlySextant: ['items_count'],
      onlyBlockscout: [],
      reason: "items_count is part of the next_page_params Sextant sends, which Blockscout's document leaves unlisted",
    },
    {
      paths: ['/v2/transactions/{transaction_hash_param}/token-transfers'],
      onlySextant: ['batch_index', 'items_count'],
      onlyBlockscout: ['batch_block_hash', 'batch_log_index', 'batch_transaction_hash', 'index_in_batch'],
      reason: "as on the other token transfer lists: Sextant's paging keys are the next_page_params it sends",
    },
    {
      paths: ['/v2/tokens/{address_hash_param}/instances/{token_id_param}/transfers'],
      onlySextant: ['batch_index', 'items_count'],
      onlyBlockscout: [],
      reason: "Sextant's paging keys are the next_page_params it sends, which Blockscout's document leaves unlisted",
    },
    {
      paths: ['/v2/addresses/{address_hash_param}/tokens'],
      onlySextant: ['token_contract_address_hash', 'token_id', 'token_name', 'token_type'],
      onlyBlockscout: ['fiat_value', 'id'],
      reason:
        "E1's order and paging keys are the spec's (value, then the token's keys), not a fiat value; " +
        'Blockscout pages by fiat_value and its own row id',
    },
    {
      paths: ['/v2/tokens/{address_hash_param}/holders'],
      onlySextant: ['token_id'],
      onlyBlockscout: [],
      reason: "an ERC-1155 token's holders are one row per id: the id completes the paging key Sextant sends",
    },
    {
      paths: ['/v2/tokens/{address_hash_param}/instances'],
      onlySextant: ['items_count'],
      onlyBlockscout: ['holder_address_hash'],
      reason: 'a paging key Sextant sends back; the filter by holder is not served (the NFTs of an address are its nft endpoints)',
    },
    {
      paths: ['/v2/tokens/{address_hash_param}/instances/{token_id_param}/holders'],
      onlySextant: [],
      onlyBlockscout: ['token_id'],
      reason: 'the id is in the path; Sextant does not take it a second time in the query',
    },
    {
      paths: ['/v2/blocks/{block_hash_or_number_param}/transactions'],
      onlySextant: [],
      onlyBlockscout: ['type'],
      reason: "a block's transactions are not filtered by type (the spec's E7 has no filter)",
    },
    {
      paths: ['/v2/addresses/{address_hash_param}/transactions'],
      onlySextant: [],
      onlyBlockscout: ['fee', 'hash', 'inserted_at', 'order', 'sort', 'value'],
      reason:
        "an address's transactions come newest first only: no sorting by fee or value, and the paging keys are block_number and index",
    },
    {
      paths: ['/v2/smart-contracts/'],
      onlySextant: [],
      onlyBlockscout: ['hash'],
      reason:
        "a sort by balance or transaction count breaks ties by smart_contract_id, as the list's own order does, " +
        "rather than by the address (Blockscout's hash)",
    },
    {
      paths: ['/v2/search'],
      onlySextant: ['items_count', 'token[address_hash]', 'token[holder_count]', 'token[is_name_null]', 'token[name]'],
      onlyBlockscout: [
        'address',
        'blob',
        'block',
        'contract',
        'ens_domain',
        'label',
        'metadata_tag',
        'next_page_params_type',
        'tac_operation',
        'token',
        'user_operation',
      ],
      reason:
        'Sextant pages search results by the token keys it sends; Blockscout pages each kind of result it searches ' +
        '(ENS, labels, user operations, blobs and more, which Sextant does not index) by a key of its own',
    },
  ],
  /** `Schema.member` of Blockscout's document that some answer of Sextant's using that schema leaves out (each is optional there). */
  membersNotSent: [
    {
      members: ['AddressTabsCounters.beacon_deposits_count', 'AddressTabsCounters.celo_election_rewards_count'],
      reason: 'Sextant indexes no beacon deposits and no Celo election rewards',
    },
    {
      members: ['Block.blob_gas_price', 'Block.burnt_blob_fees', 'BlockResponse.blob_gas_price', 'BlockResponse.burnt_blob_fees'],
      reason: "Sextant does not compute a block's blob gas price and burnt blob fees (optional in Blockscout's schema)",
    },
    {
      members: [
        'Transaction.blob_gas_price',
        'Transaction.blob_gas_used',
        'Transaction.blob_versioned_hashes',
        'Transaction.burnt_blob_fee',
        'Transaction.max_fee_per_blob_gas',
        'TransactionResponse.blob_gas_price',
        'TransactionResponse.blob_gas_used',
        'TransactionResponse.blob_versioned_hashes',
        'TransactionResponse.burnt_blob_fee',
        'TransactionResponse.max_fee_per_blob_gas',
      ],
      reason: 'the blob fields are on the transaction page (of a blob transaction) only; lists leave them out',
    },
    {
      members: [
        'SignedAuthorization.address_hash',
        'SignedAuthorization.authority',
        'SignedAuthorization.chain_id',
        'SignedAuthorization.nonce',
        'SignedAuthorization.r',
        'SignedAuthorization.s',
        'SignedAuthorization.status',
        'SignedAuthorization.v',
      ],
      reason: 'lists send an empty authorization_list; the EIP-7702 authorizations are on the transaction page',
    },
    {
      members: ['Tag.address_hash', 'Tag.display_name', 'Tag.label', 'WatchlistName.display_name', 'WatchlistName.label'],
      reason: 'Sextant has no accounts, so no private tags, public tags or watchlists: those arrays are always empty',
    },
    {
      members: [
        'Token.bridge_type',
        'Token.foreign_address',
        'Token.origin_chain_id',
        'TokenResponse.bridge_type',
        'TokenResponse.foreign_address',
        'TokenResponse.origin_chain_id',
      ],
      reason: 'bridged tokens are not tracked',
    },
    {
      members: ['TokenInstance.token_type', 'TokenInstance.value'],
      reason:
        "Sextant's NFT instances leave out both: the type is the token's (token.type), an amount is a holder's (the holders endpoints)",
    },
    {
      members: ['Withdrawal.block_number', 'Withdrawal.timestamp'],
      reason: "a block's withdrawals leave out the block they are in, as Blockscout's block withdrawals do",
    },
  ],
};
