import { Ajv } from 'ajv';

/**
 * The JSON schemas of the Etherscan-style API's answers: the envelope every action answers in, and
 * each action's result, after Blockscout's views (views/api/rpc/*.ex) with Etherscan's types.
 */

export const envelopeSchema = {
  type: 'object',
  required: ['status', 'message', 'result'],
  properties: { status: { enum: ['0', '1'] }, message: { type: 'string' } },
};

// Blockscout's views (views/api/rpc/*.ex) with Etherscan's types: every number a decimal string.
export const ajv = new Ajv({ allErrors: true });
const decimal = { type: 'string', pattern: '^(0|[1-9][0-9]*)$' };
const decimalOrEmpty = { type: 'string', pattern: '^(0|[1-9][0-9]*)?$' };
const address = { type: 'string', pattern: '^0x[0-9a-f]{40}$' };
const addressOrEmpty = { type: 'string', pattern: '^(0x[0-9a-f]{40})?$' };
const hash = { type: 'string', pattern: '^0x[0-9a-f]{64}$' };
const data = { type: 'string', pattern: '^0x([0-9a-f]{2})*$' };
const hexQuantity = { type: 'string', pattern: '^0x[0-9a-f]+$' };
const nullableString = { type: ['string', 'null'] };
const strictObject = (properties: Record<string, object>, optional: string[] = []) => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((name) => !optional.includes(name)),
  additionalProperties: false,
});
const listOf = (item: object) => ({ type: 'array', minItems: 1, items: item });
const transactionItem = strictObject({
  blockNumber: decimal,
  timeStamp: decimal,
  hash,
  nonce: decimal,
  blockHash: hash,
  transactionIndex: decimal,
  from: address,
  to: addressOrEmpty,
  value: decimal,
  gas: decimal,
  gasPrice: decimalOrEmpty,
  isError: { enum: ['0', '1'] },
  txreceipt_status: { enum: ['0', '1', ''] },
  input: data,
  contractAddress: addressOrEmpty,
  cumulativeGasUsed: decimal,
  gasUsed: decimal,
  confirmations: decimal,
  methodId: data,
});
const transferCommon = {
  blockNumber: decimal,
  timeStamp: decimal,
  hash,
  nonce: decimal,
  blockHash: hash,
  from: address,
  contractAddress: address,
  to: address,
  logIndex: decimal,
  tokenName: nullableString,
  tokenSymbol: nullableString,
  tokenDecimal: decimalOrEmpty,
  transactionIndex: decimal,
  gas: decimal,
  gasPrice: decimalOrEmpty,
  gasUsed: decimal,
  cumulativeGasUsed: decimal,
  input: data,
  confirmations: decimal,
};
export const resultSchemas: Record<string, object> = {
  balance: decimal,
  balancemulti: listOf(strictObject({ account: address, balance: decimal, stale: { type: 'boolean' } })),
  txlist: listOf(transactionItem),
  txlistinternal: listOf(
    strictObject({
      blockNumber: decimal,
      timeStamp: decimal,
      from: address,
      to: addressOrEmpty,
      value: decimal,
      contractAddress: addressOrEmpty,
      transactionHash: hash,
      index: decimal,
      input: { type: 'string' },
      type: { enum: ['call', 'create', 'create2', 'selfdestruct', 'reward'] },
      callType: { type: 'string' },
      gas: decimalOrEmpty,
      gasUsed: decimalOrEmpty,
      isError: { enum: ['0', '1'] },
      errCode: { type: 'string' },
    }),
  ),
  tokentx: listOf(strictObject({ ...transferCommon, value: decimal })),
  tokennfttx: listOf(strictObject({ ...transferCommon, tokenID: decimal })),
  token1155tx: listOf(strictObject({ ...transferCommon, tokenID: decimal, tokenValue: decimal })),
  tokenbalance: decimal,
  tokenlist: listOf(
    strictObject(
      {
        balance: decimal,
        contractAddress: address,
        name: nullableString,
        decimals: decimalOrEmpty,
        symbol: nullableString,
        type: {
          enum: ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404'],
        },
        id: decimal,
      },
      ['id'],
    ),
  ),
  getminedblocks: listOf(strictObject({ blockNumber: decimal, timeStamp: decimal })),
  gettxinfo: strictObject({
    blockNumber: decimal,
    timeStamp: decimal,
    hash,
    confirmations: decimal,
    success: { type: 'boolean' },
    from: address,
    to: addressOrEmpty,
    value: decimal,
    input: data,
    gasLimit: decimal,
    gasUsed: decimalOrEmpty,
    gasPrice: decimalOrEmpty,
    index: decimal,
    nonce: decimal,
    contractAddress: addressOrEmpty,
    revertReason: { type: 'string' },
    logs: { type: 'array', items: strictObject({ address, topics: { type: 'array', items: hash }, data, index: decimal }) },
    tokenTransfers: {
      type: 'array',
      items: strictObject(
        {
          amount: decimal,
          logIndex: decimal,
          fromAddress: address,
          toAddress: address,
          tokenContractAddress: address,
          tokenName: { type: 'string' },
          tokenSymbol: { type: 'string' },
          decimals: decimalOrEmpty,
          tokenId: decimal,
        },
        ['tokenId'],
      ),
    },
  }),
  gettxreceiptstatus: strictObject({ status: { enum: ['0', '1', ''] } }),
  getstatus: strictObject({ isError: { enum: ['0', '1'] }, errDescription: { type: 'string' } }),
  getblockreward: strictObject({
    blockNumber: decimal,
    timeStamp: decimal,
    blockMiner: address,
    blockReward: decimal,
    uncles: { type: 'array', items: strictObject({ unclePosition: decimal, blockreward: decimal }) },
    uncleInclusionReward: decimal,
  }),
  getblockcountdown: strictObject({
    CurrentBlock: decimal,
    CountdownBlock: decimal,
    RemainingBlock: decimal,
    EstimateTimeInSec: decimalOrEmpty,
  }),
  getblocknobytime: decimal,
  getLogs: listOf(
    strictObject({
      address,
      topics: { type: 'array', minItems: 4, maxItems: 4, items: { anyOf: [hash, { type: 'null' }] } },
      data,
      blockNumber: hexQuantity,
      timeStamp: hexQuantity,
      gasPrice: hexQuantity,
      gasUsed: hexQuantity,
      logIndex: hexQuantity,
      transactionHash: hash,
      transactionIndex: hexQuantity,
    }),
  ),
  listcontracts: {
    type: 'array',
    items: {
      oneOf: [
        strictObject({ Address: address, ABI: { const: 'Contract source code not verified' } }),
        strictObject({
          Address: address,
          ABI: { type: 'string', pattern: '^\\[' },
          ContractName: { type: 'string' },
          CompilerVersion: { type: 'string' },
          OptimizationUsed: { enum: ['0', '1'] },
        }),
      ],
    },
  },
  verifyproxycontract: { type: 'string', pattern: '^[0-9a-f]{41,55}$' },
  checkproxyverification: { type: 'string' },
  tokensupply: decimal,
  ethsupply: decimal,
  coinprice: strictObject({
    coin_btc: { type: 'null' },
    coin_btc_timestamp: { type: 'null' },
    coin_usd: { type: 'null' },
    coin_usd_timestamp: { type: 'null' },
  }),
  ethprice: strictObject({
    ethbtc: { type: 'null' },
    ethbtc_timestamp: { type: 'null' },
    ethusd: { type: 'null' },
    ethusd_timestamp: { type: 'null' },
  }),
};

/** Asserts that an action's result has the action's schema. */
export function assertResult(action: string, result: unknown): void {
  const schema = resultSchemas[action];
  if (schema === undefined) throw new Error(`no schema for ${action}`);
  if (!ajv.validate(schema, result)) throw new Error(`${action}: ${ajv.errorsText()} in ${JSON.stringify(result).slice(0, 300)}`);
}
