import { type Abi, type DecodedInput, type DecodedLog, type DecodingAbis, decodeCall, decodeLog, decodeRevert } from '../decoding/index.js';
import type { Address, Hex } from '../model.js';
import { AbiCache } from './abi-cache.js';
import { methodName } from './known-methods.js';
import {
  type ContractMethodType,
  type MethodSelector,
  type StoredAbi,
  methodKey,
  readContractAbis,
  readMethodCandidates,
} from '../store/read/contract-abis.js';
import type { LogItem } from '../store/read/logs.js';
import type { Db } from '../store/read/sql.js';
import type { TransactionItem } from '../store/read/transactions.js';

/** Shared by every answer: kept by content, an entry is never stale. */
const abiCache = new AbiCache(16 * 1024 * 1024);

/** The ABIs one answer decodes with: those of its contracts, and the candidates under its selectors. */
interface AnswerAbis {
  /** The ABIs to decode a call to (or a log of) this contract with, its own first, then the candidates under the selector. */
  for(address: Address | null, type: ContractMethodType, selector: Hex): DecodingAbis;
}

/** Reads, in two queries side by side, the ABIs of these contracts and the candidates under these selectors. */
async function readAnswerAbis(db: Db, addresses: readonly Address[], selectors: readonly MethodSelector[]): Promise<AnswerAbis> {
  const [byAddress, byMethod] = await Promise.all([readContractAbis(db, addresses), readMethodCandidates(db, selectors)]);
  const parse = (stored: StoredAbi[] | undefined): Abi[] => (stored ?? []).map((s) => abiCache.parsed(s));
  return {
    for: (address, type, selector) => ({
      own: address === null ? [] : parse(byAddress.get(address.toLowerCase() as Address)),
      candidates: parse(byMethod.get(methodKey(type, selector))),
    }),
  };
}

const selectorOf = (data: Hex): Hex => data.slice(0, 10).toLowerCase() as Hex;

/** Blockscout decodes the input of a call to a contract only (not of a creation, not of a transfer to an account). */
const contractCall = (item: TransactionItem): item is TransactionItem & { to: { hash: Address } } =>
  item.to?.isContract === true && item.input.length >= 10;

/**
 * The decoded input of each transaction, in order: with its contract's ABI (or its bytecode twin's),
 * else with the first of contract_methods' items under its selector that decodes it; null when none does.
 */
export async function decodeTransactionInputs(db: Db, items: readonly TransactionItem[]): Promise<(DecodedInput | null)[]> {
  const calls = items.filter(contractCall);
  if (calls.length === 0) return items.map(() => null);
  const abis = await readAnswerAbis(
    db,
    calls.map((item) => item.to.hash),
    calls.map((item) => ({ type: 'function', selector: selectorOf(item.input) })),
  );
  return items.map((item) =>
    contractCall(item) ? decodeCall(abis.for(item.to.hash, 'function', selectorOf(item.input)), item.input) : null,
  );
}

/** A call as a token transfer names the transaction that made it: whom it called (null: a creation) and its input. */
export interface Call {
  to: Address | null;
  input: Hex;
}

/**
 * The method each call names, in order, as Blockscout names the method of a token transfer: its decoded
 * function's name (with the ABIs of the called contract, else a candidate), else its selector, whether
 * or not a contract was called; null for an input shorter than a selector.
 */
export async function calledMethods(db: Db, calls: readonly Call[]): Promise<(string | null)[]> {
  const decodable = calls.filter((call) => call.to !== null && call.input.length >= 10);
  if (decodable.length === 0) return calls.map((call) => methodName(null, call.input));
  const abis = await readAnswerAbis(
    db,
    decodable.map((call) => call.to!),
    decodable.map((call) => ({ type: 'function', selector: selectorOf(call.input) })),
  );
  return calls.map((call) =>
    methodName(
      call.to !== null && call.input.length >= 10 ? decodeCall(abis.for(call.to, 'function', selectorOf(call.input)), call.input) : null,
      call.input,
    ),
  );
}

/** What a transaction's page decodes: its input, and the data it reverted with (Error(string), Panic(uint256) or a custom error). */
export interface DecodedTransaction {
  input: DecodedInput | null;
  revertReason: DecodedInput | null;
}

/** A transaction's decoded input and decoded revert reason, reading the ABIs of its contract once. */
export async function decodeTransaction(db: Db, item: TransactionItem): Promise<DecodedTransaction> {
  const revertData = item.revertReason !== null && item.revertReason.length >= 10 ? item.revertReason : null;
  const call = contractCall(item);
  if (!call && revertData === null) return { input: null, revertReason: null };
  const selectors: MethodSelector[] = [];
  if (call) selectors.push({ type: 'function', selector: selectorOf(item.input) });
  if (revertData !== null && item.to?.isContract === true) selectors.push({ type: 'error', selector: selectorOf(revertData) });
  const to = item.to?.hash ?? null;
  const abis = await readAnswerAbis(db, to === null ? [] : [to], selectors);
  return {
    input: call ? decodeCall(abis.for(to, 'function', selectorOf(item.input)), item.input) : null,
    revertReason: revertData === null ? null : decodeRevert(abis.for(to, 'error', selectorOf(revertData)), revertData),
  };
}

/** A log's event selector as contract_methods keeps it: its first topic cut to 4 bytes. */
const eventSelector = (log: LogItem): Hex | null => (log.topics[0] == null ? null : selectorOf(log.topics[0]));

/**
 * The decoded form of each log, in order: with its emitter's ABI (or its bytecode twin's), else with the
 * first of contract_methods' events under its first topic that decodes it; null when none does.
 */
export async function decodeLogs(db: Db, logs: readonly LogItem[]): Promise<(DecodedLog | null)[]> {
  const selected = logs.filter((log) => eventSelector(log) !== null);
  if (selected.length === 0) return logs.map(() => null);
  const abis = await readAnswerAbis(
    db,
    selected.map((log) => log.address.hash),
    selected.map((log) => ({ type: 'event', selector: eventSelector(log)! })),
  );
  return logs.map((log) => {
    const selector = eventSelector(log);
    return selector === null ? null : decodeLog(abis.for(log.address.hash, 'event', selector), log.topics, log.data);
  });
}
