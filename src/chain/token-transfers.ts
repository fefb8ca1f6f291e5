import { decodeAbiParameters } from 'viem';
import { type Address, type Hex, type LogRecord, type TokenTransferRecord, type TokenType, isHexData } from '../model.js';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const TRANSFER_SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
const TRANSFER_BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';

const singleData = [{ type: 'uint256' }, { type: 'uint256' }] as const;
const batchData = [{ type: 'uint256[]' }, { type: 'uint256[]' }] as const;

type Transfer = Omit<TokenTransferRecord, 'blockHash' | 'blockNumber' | 'transactionHash' | 'transactionIndex' | 'logIndex'>;

const topicAddress = (topic: Hex): Address | null => (/^0x0{24}[0-9a-f]{40}$/.test(topic) ? (`0x${topic.slice(26)}` as Address) : null);

/**
 * The transfers one log announces, or [] when it is not a token transfer or is malformed (a
 * contract may emit anything under these signatures).
 */
function transfersOfLog(log: LogRecord): Transfer[] {
  const [signature, ...indexed] = log.topics;
  const base = { batchIndex: 0, tokenAddress: log.address };
  if (signature === TRANSFER) {
    const from = indexed[0] === undefined ? null : topicAddress(indexed[0]);
    const to = indexed[1] === undefined ? null : topicAddress(indexed[1]);
    if (from === null || to === null) return [];
    if (indexed.length === 2 && isHexData(log.data, 32)) {
      return [{ tokenType: 'ERC-20', from, to, amount: BigInt(log.data), tokenId: null, ...base }];
    }
    if (indexed.length === 3 && indexed[2] !== undefined) {
      return [{ tokenType: 'ERC-721', from, to, amount: 1n, tokenId: BigInt(indexed[2]), ...base }];
    }
    return [];
  }
  if (signature !== TRANSFER_SINGLE && signature !== TRANSFER_BATCH) return [];
  if (indexed.length !== 3) return [];
  const from = topicAddress(indexed[1]!);
  const to = topicAddress(indexed[2]!);
  if (from === null || to === null) return [];
  const erc1155 = { tokenType: 'ERC-1155' as const, from, to, ...base };
  try {
    if (signature === TRANSFER_SINGLE) {
      const [id, amount] = decodeAbiParameters(singleData, log.data);
      return [{ amount, tokenId: id, ...erc1155 }];
    }
    const [ids, amounts] = decodeAbiParameters(batchData, log.data);
    if (ids.length !== amounts.length) return [];
    return ids.map((id, i) => Object.assign({}, erc1155, { batchIndex: i, amount: amounts[i]!, tokenId: id }));
  } catch {
    return [];
  }
}

/**
 * The token transfers of a block's logs, in log order: ERC-20 and ERC-721 Transfer (told apart by
 * whether the value is indexed) and ERC-1155 TransferSingle and TransferBatch. A contract that
 * emits both kinds of Transfer in the block is ERC-404, and all its transfers are typed so.
 */
export function decodeTokenTransfers(logs: readonly LogRecord[]): TokenTransferRecord[] {
  const transfers = logs.flatMap((log) =>
    transfersOfLog(log).map((transfer) => ({
      blockHash: log.blockHash,
      blockNumber: log.blockNumber,
      transactionHash: log.transactionHash,
      transactionIndex: log.transactionIndex,
      logIndex: log.logIndex,
      ...transfer,
    })),
  );
  const kinds = new Map<Address, Set<TokenType>>();
  for (const { tokenAddress, tokenType } of transfers) {
    kinds.set(tokenAddress, (kinds.get(tokenAddress) ?? new Set()).add(tokenType));
  }
  const isErc404 = (address: Address): boolean => {
    const types = kinds.get(address);
    return types !== undefined && types.has('ERC-20') && types.has('ERC-721');
  };
  return transfers.map((t) => (isErc404(t.tokenAddress) ? Object.assign({}, t, { tokenType: 'ERC-404' as const }) : t));
}
