import { createWalletClient, decodeEventLog, http, parseAbi, toEventSelector, type Address, type Hex } from 'viem';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode, type StartAnvilOptions } from '../../src/demo/anvil.js';
import { DemoERC1155 } from '../../src/demo/artifacts.js';
import { runScenario, type ScenarioResult } from '../../src/demo/scenario.js';
import { pino } from 'pino';
import { startIndexer } from '../../src/indexer/blocks/indexer.js';
import { startContractCodeStage } from '../../src/indexer/stages/contract-code-stage.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { recordChainFact } from '../../src/store/chain-facts.js';
import type { TestDatabase } from './database.js';
import { waitForMined } from './mined.js';
import { testIndexerOptions } from './indexer-options.js';

/**
 * The demo scenario on anvil, plus an ERC-1155 batch of 60 ids minted to carol and sent on to dave
 * (so that pages end inside a batch), and batches that list an id twice (minted to carol, sent on to
 * dave), indexed into a test database; and every token transfer the node
 * reports, decoded here with viem, independently of Sextant's decoder.
 */

export const transferEvents = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
]);
const erc721Transfer = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)']);
const transferTopic = toEventSelector(erc721Transfer[0]);

export const batchIds = Array.from({ length: 60 }, (_, i) => 100n + BigInt(i));

/** The id that the batches below list twice each, with the other id and the amounts of each entry. */
export const repeatedId = 7n;
const repeatedMint = { ids: [repeatedId, 8n, repeatedId], amounts: [2n, 3n, 4n] };
const repeatedSend = { ids: [repeatedId, repeatedId, 8n], amounts: [1n, 5n, 3n] };

export interface NodeTransfer {
  blockNumber: number;
  logIndex: number;
  batchIndex: number;
  token: Address;
  type: 'ERC-20' | 'ERC-721' | 'ERC-1155';
  from: Address;
  to: Address;
  tokenId: bigint | null;
  value: bigint;
}

export interface TokenChain {
  anvil: AnvilNode;
  client: RpcClient;
  scenario: ScenarioResult;
  transfers: NodeTransfer[];
}

async function sendBatches(rpcUrl: string, scenario: ScenarioResult): Promise<void> {
  const { carol, dave, deployer } = scenario.accounts;
  const wallet = createWalletClient({ transport: http(rpcUrl) });
  const client = createRpcClient({ url: rpcUrl });
  const call = { address: scenario.contracts.erc1155, abi: DemoERC1155.abi, chain: null } as const;
  const ones = batchIds.map(() => 1n);
  await waitForMined(
    client,
    await wallet.writeContract({ ...call, account: deployer, functionName: 'mintBatch', args: [carol, batchIds, ones, '0x'] }),
  );
  await waitForMined(
    client,
    await wallet.writeContract({
      ...call,
      account: carol,
      functionName: 'safeBatchTransferFrom',
      args: [carol, dave, batchIds, ones, '0x'],
    }),
  );
  await waitForMined(
    client,
    await wallet.writeContract({
      ...call,
      account: deployer,
      functionName: 'mintBatch',
      args: [carol, repeatedMint.ids, repeatedMint.amounts, '0x'],
    }),
  );
  await waitForMined(
    client,
    await wallet.writeContract({
      ...call,
      account: carol,
      functionName: 'safeBatchTransferFrom',
      args: [carol, dave, repeatedSend.ids, repeatedSend.amounts, '0x'],
    }),
  );
}

interface RpcLog {
  address: Address;
  topics: [Hex, ...Hex[]];
  data: Hex;
  blockNumber: Hex;
  logIndex: Hex;
}

/** Every token transfer the node's logs hold, decoded here. */
export async function nodeTransfers(client: RpcClient): Promise<NodeTransfer[]> {
  const logs = await client.request<RpcLog[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
  const transfers: NodeTransfer[] = [];
  for (const log of logs) {
    const position = { blockNumber: Number(log.blockNumber), logIndex: Number(log.logIndex), token: log.address };
    const abi = log.topics[0] === transferTopic && log.topics.length === 4 ? erc721Transfer : transferEvents;
    let event: { eventName: string; args: unknown };
    try {
      event = decodeEventLog({ abi, topics: log.topics, data: log.data });
    } catch {
      continue;
    }
    const args = event.args as Record<string, unknown>;
    if (event.eventName === 'Transfer' && 'tokenId' in args) {
      transfers.push({
        ...position,
        batchIndex: 0,
        type: 'ERC-721',
        from: args.from as Address,
        to: args.to as Address,
        tokenId: args.tokenId as bigint,
        value: 1n,
      });
    } else if (event.eventName === 'Transfer') {
      transfers.push({
        ...position,
        batchIndex: 0,
        type: 'ERC-20',
        from: args.from as Address,
        to: args.to as Address,
        tokenId: null,
        value: args.value as bigint,
      });
    } else if (event.eventName === 'TransferSingle') {
      transfers.push({
        ...position,
        batchIndex: 0,
        type: 'ERC-1155',
        from: args.from as Address,
        to: args.to as Address,
        tokenId: args.id as bigint,
        value: args.value as bigint,
      });
    } else if (event.eventName === 'TransferBatch') {
      const ids = args.ids as bigint[];
      const values = args.values as bigint[];
      for (const [batchIndex, id] of ids.entries()) {
        transfers.push({
          ...position,
          batchIndex,
          type: 'ERC-1155',
          from: args.from as Address,
          to: args.to as Address,
          tokenId: id,
          value: values[batchIndex]!,
        });
      }
    }
  }
  return transfers.map((t) => ({
    ...t,
    token: t.token.toLowerCase() as Address,
    from: t.from.toLowerCase() as Address,
    to: t.to.toLowerCase() as Address,
  }));
}

/** The chain above on a new anvil; if it cannot be set up, anvil is stopped (else the test file would never end). */
export async function startTokenChain(anvilOptions: StartAnvilOptions = {}): Promise<TokenChain> {
  const anvil = await startAnvil(anvilOptions);
  try {
    const scenario = await runScenario(anvil.rpcUrl);
    await sendBatches(anvil.rpcUrl, scenario);
    const client = createRpcClient({ url: anvil.rpcUrl });
    return { anvil, client, scenario, transfers: await nodeTransfers(client) };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** Indexes the whole chain into the database. */
export async function indexTokenChain(chain: TokenChain, db: TestDatabase): Promise<void> {
  const head = BigInt(await chain.client.request<string>('eth_blockNumber', []));
  const indexer = startIndexer(await testIndexerOptions(db, chain.client, head));
  await indexer.done;
}

/**
 * Indexes the whole chain as `sextant start` leaves it for verification: its chain id recorded, every
 * block traced (so that contracts created by contracts are known) and every contract's code read.
 */
export async function indexTokenChainWithContracts(chain: TokenChain, db: TestDatabase): Promise<void> {
  await indexTokenChain(chain, db);
  await recordChainFact(db.pool, 'chain_id', String(chain.scenario.chainId));
  const logger = pino({ level: 'silent' });
  const backoff = { initialMs: 10, maxMs: 100 };
  const traces = startTraceStage({
    pool: db.pool,
    client: chain.client,
    traceMethod: 'trace_block',
    logger,
    batchSize: 5,
    concurrency: 2,
    pollIntervalMs: 20,
    backoff,
  });
  await traces.drained();
  await traces.stop();
  // After the traces: the contracts they mark are read too.
  const code = startContractCodeStage({ pool: db.pool, client: chain.client, logger, batchSize: 50, pollIntervalMs: 20, backoff });
  await code.drained();
  await code.stop();
}
