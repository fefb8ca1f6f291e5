import { readIndexedHead } from '../../store/read/chain.js';
import { type LogFilter, findLogs } from '../../store/read/etherscan.js';
import { type Action, type ModuleActions, listAction } from './action.js';
import { failure, okSerialized } from './envelope.js';
import { type ActionParams, parseAddress, parseCount, parseHash } from './params.js';

/** The logs module: getLogs over a block range, by emitter and topics, oldest first, at most 1,000 (as Blockscout). */

const maxLogs = 1000;
const topicNames = ['topic0', 'topic1', 'topic2', 'topic3'] as const;
const operatorName = (a: number, b: number) => `topic${a}_${b}_opr`;

/** What is required and missing, in Blockscout's words; empty when nothing is. */
function missingParams(params: ActionParams): string[] {
  const missingRange = ['fromBlock', 'toBlock'].filter((name) => !params.has(name));
  const filtered = params.has('address') || topicNames.some((name) => params.has(name));
  if (!filtered) return [...missingRange, 'address and/or topic{x}'];
  if (missingRange.length > 0) return missingRange;
  const given = topicNames.flatMap((name, position) => (params.has(name) ? [position] : []));
  return given.flatMap((a, i) => given.slice(i + 1).map((b) => operatorName(a, b))).filter((name) => !params.has(name));
}

async function blockNumber(value: string, db: Parameters<Action>[1]['db']): Promise<number | null> {
  if (value === 'latest') return (await readIndexedHead(db)) ?? 0;
  return parseCount(value);
}

const getlogs: Action = async (params, { db }) => {
  const missing = missingParams(params);
  if (missing.length > 0) return failure(`Required query parameters missing: ${missing.join(', ')}`);
  const fromBlock = await blockNumber(params.get('fromBlock')!, db);
  if (fromBlock === null) return failure('Invalid fromBlock format');
  const toBlock = await blockNumber(params.get('toBlock')!, db);
  if (toBlock === null) return failure('Invalid toBlock format');
  const givenAddress = params.get('address');
  const address = givenAddress === undefined ? null : parseAddress(givenAddress);
  if (givenAddress !== undefined && address === null) return failure('Invalid address format');
  const topics: LogFilter['topics'] = [];
  let previous: number | null = null;
  for (const [position, name] of topicNames.entries()) {
    const given = params.get(name);
    if (given === undefined) continue;
    const value = parseHash(given);
    if (value === null) return failure(`Invalid ${name} format`);
    const operator = previous === null ? 'and' : params.get(operatorName(previous, position));
    if (operator !== 'and' && operator !== 'or') return failure(`Invalid ${operatorName(previous!, position)} format`);
    topics.push({ position: position as 0 | 1 | 2 | 3, value, joinedBy: operator });
    previous = position;
  }
  const logs = await findLogs(db, { fromBlock, toBlock, address, topics }, maxLogs);
  if (logs.length === 0) return failure('No logs found', []);
  return okSerialized(`[${logs.join(',')}]`);
};

export const logsActions: ModuleActions = { getlogs: listAction(getlogs) };
