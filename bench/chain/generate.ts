import type { RpcBlock, RpcLog, RpcReceipt, RpcTransaction, RpcWithdrawal } from '../../src/chain/rpc-types.js';
import type { Address, Hex } from '../../src/model.js';
import { abiUintArrays, abiUintArraysAndBytes, addressTopic, callInput, uintTopic, uintWord } from './abi.js';
import {
  HOT_ACCOUNTS,
  Kind,
  account,
  address,
  benchKeys,
  blockHash,
  coldCollection,
  erc1155,
  erc20,
  erc721,
  mix,
  stateRoot,
  transactionHash,
  type BenchKeys,
} from './keys.js';
import { Random } from './random.js';
import type { ChainShape } from './scale.js';

/** One block as a node serves it: the block with full transactions, its receipts, and its Parity traces. */
export interface GeneratedBlock {
  block: RpcBlock;
  receipts: RpcReceipt[];
  traces: ParityFrame[];
}

export interface ParityFrame {
  action: Record<string, string>;
  blockHash: Hex;
  blockNumber: number;
  result: { gasUsed: string; output: string };
  error?: string;
  subtraces: number;
  traceAddress: number[];
  transactionHash: Hex;
  transactionPosition: number;
  type: 'call';
}

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const TRANSFER_SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
const TRANSFER_BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';
const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';
const EMPTY_BLOOM = `0x${'0'.repeat(512)}`;
const GWEI = 1_000_000_000n;
const DISTRIBUTOR = address(Kind.Contract, 0);

/** The generated chain's id, as a node reports it. */
export const CHAIN_ID = '0x7a69a';

const hex = (value: bigint | number): string => `0x${value.toString(16)}`;

/** A log before it is placed in its block. */
interface LogSpec {
  address: Address;
  topics: Hex[];
  data: Hex;
}

/** A call made by a transaction, below its top-level frame. */
interface CallSpec {
  from: Address;
  to: Address;
  value: bigint;
}

/** One transaction before it is placed in its block. */
interface TransactionSpec {
  from: Address;
  to: Address;
  value: bigint;
  input: Hex;
  logs: LogSpec[];
  calls: CallSpec[];
  failed: boolean;
}

export interface ChainGenerator {
  readonly shape: ChainShape;
  readonly keys: BenchKeys;
  readonly head: number;
  /** Block `number` (0 .. head), the same on every call. */
  block(number: number): GeneratedBlock;
}

/**
 * The generated chain: every block is a function of the seed and its number, so that any block can be
 * served or loaded without the rest of the chain in memory. Activity is skewed as on a real chain: three
 * hot accounts take part in about half of all token transfers and calls, the other accounts follow a
 * power law, and the cold address, cold miner and cold NFT appear in exactly `coldBlocks` blocks.
 */
export function createChainGenerator(shape: ChainShape): ChainGenerator {
  const keys = benchKeys(shape);
  // On a chain shorter than `coldBlocks`, every block from block 1 is cold.
  const coldEvery = Math.max(1, Math.floor(shape.blocks / shape.coldBlocks));
  /** Which cold block n is (0 .. coldBlocks-1), or null when it is not one: blocks 1, 1 + coldEvery, ... */
  const coldBlockIndex = (n: number): number | null => {
    const k = (n - 1) / coldEvery;
    return Number.isInteger(k) && k >= 0 && k < shape.coldBlocks ? k : null;
  };
  const tailAccounts = shape.accounts - HOT_ACCOUNTS - 1;

  const pickAccount = (random: Random): Address => {
    const u = random.next();
    if (u < 0.3) return account(0);
    if (u < 0.35) return account(1);
    if (u < 0.38) return account(2);
    return account(HOT_ACCOUNTS + random.skewed(tailAccounts, 3));
  };
  /** Who holds the hot NFT after block n. */
  const hotInstanceOwner = (n: number): Address => account(HOT_ACCOUNTS + (mix(shape.seed, n, 7) % tailAccounts));
  /** Who holds the cold NFT after its k-th transfer. */
  const coldInstanceOwner = (k: number): Address => (k % 2 === 0 ? keys.coldAddress : account(HOT_ACCOUNTS));

  const transfer = (token: Address, from: Address, to: Address, value: bigint, nft: boolean): LogSpec =>
    nft
      ? { address: token, topics: [TRANSFER, addressTopic(from), addressTopic(to), uintTopic(value)], data: '0x' }
      : { address: token, topics: [TRANSFER, addressTopic(from), addressTopic(to)], data: `0x${uintWord(value)}` };
  const transferSingle = (token: Address, operator: Address, from: Address, to: Address, id: bigint, amount: bigint): LogSpec => ({
    address: token,
    topics: [TRANSFER_SINGLE, addressTopic(operator), addressTopic(from), addressTopic(to)],
    data: `0x${uintWord(id)}${uintWord(amount)}`,
  });

  /**
   * What the cold address gets in the k-th cold block: an NFT of a collection of its own (E1, E3), the
   * cold ERC-20 and one ERC-1155 id (one balance each however many blocks), and the cold NFT, which it
   * holds after every other move (E4).
   */
  const coldTransfers = (k: number): LogSpec[] => {
    const cold = keys.coldAddress;
    return [
      transfer(erc20(shape.airdropTokens + shape.busyErc20), ZERO_ADDRESS, cold, 10n ** 18n, false),
      transfer(coldCollection(shape, k), ZERO_ADDRESS, cold, 0n, true),
      transfer(
        keys.coldInstance.token,
        k === 0 ? ZERO_ADDRESS : coldInstanceOwner(k - 1),
        coldInstanceOwner(k),
        keys.coldInstance.id,
        true,
      ),
      transferSingle(erc1155(shape.busyErc1155), DISTRIBUTOR, ZERO_ADDRESS, cold, 0n, 1n),
    ];
  };

  /** Transaction 0 of every block: mints to the hot holder, moves the hot NFT, and serves the cold address in cold blocks. */
  const airdrop = (n: number): TransactionSpec => {
    const hot = keys.hotAddress;
    const logs = [
      transfer(erc20(n % shape.airdropTokens), ZERO_ADDRESS, hot, 10n ** 18n, false),
      transfer(erc721(n % shape.airdropTokens), ZERO_ADDRESS, hot, BigInt(n), true),
      transfer(keys.hotInstance.token, n === 0 ? ZERO_ADDRESS : hotInstanceOwner(n - 1), hotInstanceOwner(n), keys.hotInstance.id, true),
    ];
    const calls: CallSpec[] = [{ from: DISTRIBUTOR, to: hot, value: 1n }];
    const k = coldBlockIndex(n);
    if (k !== null) {
      logs.push(...coldTransfers(k));
      calls.push({ from: DISTRIBUTOR, to: keys.coldAddress, value: 1n });
    }
    return { from: account(1), to: DISTRIBUTOR, value: 0n, input: '0xc204642c', logs, calls, failed: false };
  };

  /** Any other transaction: token transfers of one kind, or a plain payment, with `callCount` calls below it (0 to 4 when null). */
  const ordinary = (random: Random, callCount: number | null): TransactionSpec => {
    const from = pickAccount(random);
    const kind = random.next();
    const failed = random.next() < 0.02;
    const logs: LogSpec[] = [];
    let to: Address;
    let input: Hex;
    if (kind < 0.55) {
      to = erc20(shape.airdropTokens + random.skewed(shape.busyErc20, 2));
      for (let count = 1 + random.below(6); count > 0; count--) {
        logs.push(transfer(to, pickAccount(random), pickAccount(random), BigInt(1 + random.below(1e9)) * GWEI, false));
      }
      input = callInput('0xa9059cbb', logs[0]!.topics[2]!, logs[0]!.data);
    } else if (kind < 0.75) {
      to = erc721(shape.airdropTokens + random.skewed(shape.busyErc721, 2));
      for (let count = 1 + random.below(3); count > 0; count--) {
        logs.push(transfer(to, pickAccount(random), pickAccount(random), BigInt(1 + random.below(1000)), true));
      }
      input = callInput('0x23b872dd', ...logs[0]!.topics.slice(1));
    } else if (kind < 0.85) {
      to = erc1155(random.skewed(shape.busyErc1155, 2));
      for (let count = 1 + random.below(3); count > 0; count--) {
        logs.push(
          transferSingle(to, from, pickAccount(random), pickAccount(random), BigInt(1 + random.below(100)), BigInt(1 + random.below(10))),
        );
      }
      const [, , sender, recipient] = logs[0]!.topics;
      input = callInput('0xf242432a', sender!, recipient!, logs[0]!.data, uintTopic(160), uintTopic(0));
    } else if (kind < 0.95) {
      to = erc1155(random.skewed(shape.busyErc1155, 2));
      const size = 2 + random.below(7);
      const ids = Array.from({ length: size }, () => BigInt(1 + random.below(100)));
      const amounts = Array.from({ length: size }, () => BigInt(1 + random.below(10)));
      const [sender, recipient] = [addressTopic(pickAccount(random)), addressTopic(pickAccount(random))];
      logs.push({ address: to, topics: [TRANSFER_BATCH, addressTopic(from), sender, recipient], data: abiUintArrays(ids, amounts) });
      input = callInput('0x2eb2c2d6', sender, recipient, abiUintArraysAndBytes(ids, amounts));
    } else {
      to = pickAccount(random);
      input = '0x';
    }
    const calls = Array.from({ length: callCount ?? random.below(5) }, () => ({
      from: to,
      to: pickAccount(random),
      value: BigInt(random.below(1000)) * GWEI,
    }));
    return failed
      ? { from, to, value: 0n, input, logs: [], calls: [], failed }
      : { from, to, value: input === '0x' ? GWEI : 0n, input, logs, calls, failed };
  };

  const block = (number: number): GeneratedBlock => {
    const random = new Random(mix(shape.seed, number));
    const hash = blockHash(number);
    const miner =
      coldBlockIndex(number) !== null ? keys.coldMiner : random.next() < 0.9 ? keys.hotMiner : address(Kind.Miner, 2 + random.below(1000));
    const baseFee = 10n * GWEI + BigInt(number % 100) * 10_000_000n;
    const heavy = number % shape.heavyTraceEvery === shape.heavyTraceEvery / 2;
    const specs = Array.from({ length: shape.transactionsPerBlock }, (_, i) =>
      i === 0 ? airdrop(number) : ordinary(random, heavy && i === 1 ? shape.heavyTraceFrames : null),
    );

    const transactions: RpcTransaction[] = [];
    const receipts: RpcReceipt[] = [];
    const traces: ParityFrame[] = [];
    let cumulativeGas = 0n;
    let logIndex = 0;
    specs.forEach((spec, i) => {
      const txHash = transactionHash(number, i);
      const gasUsed = 21_000n + 30_000n * BigInt(spec.logs.length) + 5_000n * BigInt(spec.calls.length);
      cumulativeGas += gasUsed;
      const priority = GWEI;
      const common = { blockHash: hash, blockNumber: hex(number), transactionIndex: hex(i) };
      transactions.push({
        ...common,
        hash: txHash,
        from: spec.from,
        to: spec.to,
        nonce: hex(number),
        type: '0x2',
        value: hex(spec.value),
        gas: hex((gasUsed * 6n) / 5n),
        gasPrice: hex(baseFee + priority),
        maxFeePerGas: hex(baseFee * 2n),
        maxPriorityFeePerGas: hex(priority),
        input: spec.input,
        ...signature(number, i),
      } as RpcTransaction);
      const logs: RpcLog[] = spec.logs.map((log) => ({
        ...log,
        ...common,
        logIndex: hex(logIndex++),
        transactionHash: txHash,
        removed: false,
      }));
      receipts.push({
        ...common,
        transactionHash: txHash,
        from: spec.from,
        to: spec.to,
        contractAddress: null,
        gasUsed: hex(gasUsed),
        cumulativeGasUsed: hex(cumulativeGas),
        effectiveGasPrice: hex(baseFee + priority),
        status: spec.failed ? '0x0' : '0x1',
        type: '0x2',
        logs,
        logsBloom: EMPTY_BLOOM,
      } as RpcReceipt);
      const frame = (from: Address, to: Address, value: bigint, traceAddress: number[], subtraces: number): ParityFrame => ({
        action: { from, callType: 'call', gas: hex(gasUsed), input: traceAddress.length === 0 ? spec.input : '0x', to, value: hex(value) },
        blockHash: hash,
        blockNumber: number,
        // A reverted frame keeps its result, as Erigon reports it.
        result: { gasUsed: hex(traceAddress.length === 0 ? gasUsed : 2_300n), output: '0x' },
        ...(spec.failed ? { error: 'Reverted' } : {}),
        subtraces,
        traceAddress,
        transactionHash: txHash,
        transactionPosition: i,
        type: 'call',
      });
      traces.push(frame(spec.from, spec.to, spec.value, [], spec.calls.length));
      for (const [k, call] of spec.calls.entries()) traces.push(frame(call.from, call.to, call.value, [k], 0));
    });

    const withdrawals: RpcWithdrawal[] = Array.from({ length: shape.withdrawalsPerBlock }, (_, k) => {
      const index = number * shape.withdrawalsPerBlock + k;
      return {
        index: hex(index),
        validatorIndex: hex(index % 500_000),
        address: account(HOT_ACCOUNTS + random.skewed(tailAccounts, 3)),
        amount: hex(15_000_000 + random.below(1_000_000)),
      };
    });

    return {
      block: {
        number: hex(number),
        hash,
        parentHash: number === 0 ? `0x${'0'.repeat(64)}` : blockHash(number - 1),
        timestamp: hex(1_700_000_000 + 12 * number),
        miner,
        nonce: '0x0000000000000000',
        difficulty: '0x0',
        totalDifficulty: '0xc70d815d562d3cfa955',
        size: hex(1_000 + 600 * specs.length),
        extraData: '0x626574617665726275696c642e6f7267',
        stateRoot: stateRoot(number),
        gasLimit: hex(30_000_000),
        gasUsed: hex(cumulativeGas),
        baseFeePerGas: hex(baseFee),
        uncles: [],
        transactions,
        withdrawals,
        logsBloom: EMPTY_BLOOM,
        mixHash: stateRoot(number + 1),
        sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
      } as RpcBlock,
      receipts,
      traces,
    };
  };

  return { shape, keys, head: shape.blocks - 1, block };
}

/** A signature's members, as a node sends them (they are carried, not checked). */
function signature(number: number, index: number): Record<string, unknown> {
  return { chainId: CHAIN_ID, v: '0x1', yParity: '0x1', r: transactionHash(number, index), s: blockHash(number), accessList: [] };
}
