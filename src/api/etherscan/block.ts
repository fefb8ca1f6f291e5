import { findBlockByNumber, readBlockDetail } from '../../store/read/blocks.js';
import { readChainTiming, readIndexedHead } from '../../store/read/chain.js';
import { findBlockNumberByTime } from '../../store/read/etherscan.js';
import type { Action, ModuleActions } from './action.js';
import { type ActionAnswer, failure, ok } from './envelope.js';
import { parseCount } from './params.js';

/** The block module: a block's reward, the time until a future block, the block at a time, the newest block. */

const getblockreward: Action = async (params, { db }) => {
  const given = params.get('blockno');
  if (given === undefined) return failure("Query parameter 'blockno' is required");
  const number = parseCount(given);
  if (number === null) return failure('Invalid block number');
  const found = await findBlockByNumber(db, number);
  const block = found === null || !found.consensus ? null : await readBlockDetail(db, found.hash);
  if (block === null) return failure('Block does not exist');
  const rewardOf = (type: string) => block.rewards.find((reward) => reward.type === type)?.reward ?? 0n;
  return ok({
    blockNumber: String(block.number),
    timeStamp: String(Math.floor(Date.parse(block.timestamp) / 1000)),
    blockMiner: block.miner.hash,
    blockReward: rewardOf('validator').toString(),
    uncles: block.rewards
      .filter((reward) => reward.type === 'uncle')
      .map((reward, position) => ({ unclePosition: String(position), blockreward: reward.reward.toString() })),
    uncleInclusionReward: '0',
  });
};

const getblockcountdown: Action = async (params, { db }) => {
  const given = params.get('blockno');
  if (given === undefined) return failure("Query parameter 'blockno' is required");
  const target = parseCount(given);
  if (target === null) return failure('Invalid block number');
  const { head, averageBlockTimeMs } = await readChainTiming(db);
  if (head === null) return failure('Block number not found');
  if (target <= head) return failure('Error! Block number already pass');
  const remaining = target - head;
  return ok({
    CurrentBlock: String(head),
    CountdownBlock: String(target),
    RemainingBlock: String(remaining),
    EstimateTimeInSec: averageBlockTimeMs === null ? '' : String(Math.round((remaining * averageBlockTimeMs) / 1000)),
  });
};

const getblocknobytime: Action = async (params, { db }) => {
  const missing = ['timestamp', 'closest'].filter((name) => !params.has(name));
  if (missing.length > 0) return failure(`Required query parameters missing: ${missing.join(', ')}`);
  const timestamp = parseCount(params.get('timestamp'));
  if (timestamp === null) return failure('Invalid `timestamp` param');
  const closest = params.get('closest');
  if (closest !== 'before' && closest !== 'after') return failure('Invalid `closest` param');
  const number = await findBlockNumberByTime(db, timestamp, closest);
  return number === null ? failure('Block does not exist') : ok(String(number));
};

/** As JSON-RPC's eth_blockNumber answers: the indexed head, with the request's id. */
const ethBlockNumber: Action = async (params, { db }): Promise<ActionAnswer> => {
  const head = await readIndexedHead(db);
  const id = params.get('id') ?? '1';
  return {
    httpStatus: 200,
    body: { jsonrpc: '2.0', id: /^[0-9]{1,15}$/.test(id) ? Number(id) : id, result: `0x${(head ?? 0).toString(16)}` },
  };
};

export const blockActions: ModuleActions = { getblockreward, getblockcountdown, getblocknobytime, eth_block_number: ethBlockNumber };
