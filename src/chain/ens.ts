import { concat, decodeFunctionResult, encodeFunctionData, keccak256, parseAbi } from 'viem';
import { namehash, normalize } from 'viem/ens';
import { type Address, type Hex, hexQuantity, type PrimaryNameRecord, ZERO_ADDRESS } from '../model.js';
import type { RpcCall, RpcClient } from './rpc.js';
import { settledCalls } from './settled-calls.js';

/** Mainnet's ENS registry (with fallback), the default on chain 1. */
export const MAINNET_ENS_REGISTRY: Address = '0x00000000000c2e074ec69a0dfb2997ba6c7d2e1e';

const abi = parseAbi([
  'function resolver(bytes32 node) view returns (address)',
  'function name(bytes32 node) view returns (string)',
  'function addr(bytes32 node) view returns (address)',
]);

/** The node of an address under addr.reverse: its lowercase hex, without 0x, as a label. */
export const reverseNode = (address: Address): Hex => namehash(`${address.slice(2).toLowerCase()}.addr.reverse`) as Hex;

/** The name as ENS normalizes it (ENSIP-15), or null where it does not normalize or is not already normal. */
function normalName(name: string): string | null {
  try {
    return normalize(name) === name ? name : null;
  } catch {
    return null;
  }
}

/** The address a 32-byte answer holds, or null (no answer, the zero address, a malformed word). */
function decodedAddress(data: Hex | null | undefined): Address | null {
  if (data == null || data.length !== 66) return null;
  try {
    const address = decodeFunctionResult({ abi, functionName: 'resolver', data }).toLowerCase() as Address;
    return address === ZERO_ADDRESS ? null : address;
  } catch {
    return null;
  }
}

function decodedName(data: Hex | null | undefined): string | null {
  if (data == null || data === '0x') return null;
  try {
    const name = decodeFunctionResult({ abi, functionName: 'name', data });
    return name === '' ? null : name;
  } catch {
    return null;
  }
}

/**
 * The primary names of `addresses` at `blockNumber`, as ENS defines them: the reverse record (the
 * registry's resolver of the address's addr.reverse node, asked for `name`), checked forward (the
 * registry's resolver of that name, asked for `addr`, must give the address back). Four rounds of
 * one JSON-RPC batch each, whatever the number of addresses. A call that reverts counts as no answer;
 * a node that refuses for now rejects the whole read.
 */
export async function readPrimaryNames(
  client: RpcClient,
  registry: Address,
  addresses: readonly Address[],
  blockNumber: bigint,
): Promise<PrimaryNameRecord[]> {
  const block = hexQuantity(blockNumber);
  const call = (to: Address, functionName: 'resolver' | 'name' | 'addr', node: Hex): RpcCall => ({
    method: 'eth_call',
    params: [{ to, data: encodeFunctionData({ abi, functionName, args: [node] }) }, block],
  });
  /** One batch of the calls `select` gives for the records; a record it gives none answers null. */
  const round = async <T>(entries: readonly T[], select: (entry: T, index: number) => RpcCall | null): Promise<(Hex | null)[]> => {
    const calls = entries.map(select);
    const asked = calls.flatMap((c) => (c === null ? [] : [c]));
    const answers = await settledCalls(client, asked);
    let next = 0;
    return calls.map((c) => (c === null ? null : (answers[next++] ?? null)));
  };

  const records: PrimaryNameRecord[] = addresses.map((address) => ({
    address: address.toLowerCase() as Address,
    reverseNode: reverseNode(address),
    claimed: null,
    claimedNode: null,
    name: null,
  }));
  const reverseResolvers = (await round(records, (r) => call(registry, 'resolver', r.reverseNode))).map(decodedAddress);
  const names = (
    await round(records, (r, i) => {
      const resolver = reverseResolvers[i];
      return resolver == null ? null : call(resolver, 'name', r.reverseNode);
    })
  ).map(decodedName);
  for (const [i, record] of records.entries()) {
    const claimed = names[i] ?? null;
    if (claimed === null) continue;
    record.claimed = claimed;
    const normal = normalName(claimed);
    if (normal !== null) record.claimedNode = namehash(normal) as Hex;
  }
  const forwardResolvers = (await round(records, (r) => (r.claimedNode === null ? null : call(registry, 'resolver', r.claimedNode)))).map(
    decodedAddress,
  );
  const resolved = (
    await round(records, (r, i) => {
      const resolver = forwardResolvers[i];
      return resolver == null || r.claimedNode === null ? null : call(resolver, 'addr', r.claimedNode);
    })
  ).map(decodedAddress);
  for (const [i, record] of records.entries()) {
    if (record.claimedNode !== null && resolved[i] === record.address) record.name = record.claimed;
  }
  return records;
}

/** topic0 of the registry's, resolvers' and reverse registrar's events that change a primary name. */
export const ensEventTopics = {
  // Registry: NewOwner(bytes32 indexed node, bytes32 indexed label, address owner), Transfer(bytes32 indexed node, address owner),
  // NewResolver(bytes32 indexed node, address resolver).
  newOwner: '0xce0457fe73731f824cc272376169235128c118b49d344817417c6d108d155e82',
  transfer: '0xd4735d920b0f87494915f556dd9b54c8f309026070caea5c737245152564d266',
  newResolver: '0x335721b01866dc23fbee8b6b2c7b1e14d6f05c28cd35a2c934239f94095602a0',
  // Resolvers: AddrChanged(bytes32 indexed node, address a), AddressChanged(bytes32 indexed node, uint256 coinType, bytes newAddress),
  // NameChanged(bytes32 indexed node, string name).
  addrChanged: '0x52d7d861f09ab3d26239d492e8968629f95e9e318cf0b73bfddc441522a15fd2',
  addressChanged: '0x65412581168e88a1e60c6459d7f44ae83ad0832e670826c05a4e2476b57af752',
  nameChanged: '0xb7d29e911041e8d9b843369e890bcb72c9388692ba48b65ac54e7214c4c348f7',
  // Reverse registrar: ReverseClaimed(address indexed addr, bytes32 indexed node).
  reverseClaimed: '0x6ada868dd3058cf77a48a74489fd7963688e5464b2b0fa957ace976243270e92',
} as const satisfies Record<string, Hex>;

/**
 * Whom ENS events concern, from their topics alone (any emitter: a contract that merely shares an
 * event's signature costs a needless check, never a wrong name): the addresses they name (a reverse
 * claim's claimant, an addr record's new address), and the nodes they change (a reverse node, a
 * name's node; NewOwner's subnode).
 */
export function ensEventParties(logs: readonly { topics: readonly Hex[]; data: Hex }[]): { addresses: Address[]; nodes: Hex[] } {
  const addresses: Address[] = [];
  const nodes: Hex[] = [];
  const wordAddress = (word: string | undefined) => (word === undefined || word.length < 64 ? null : (`0x${word.slice(-40)}` as Address));
  for (const { topics, data } of logs) {
    const [topic, first, second] = topics;
    if (first === undefined) continue;
    if (topic === ensEventTopics.reverseClaimed) {
      const claimant = wordAddress(first.slice(2));
      if (claimant !== null) addresses.push(claimant);
      if (second !== undefined) nodes.push(second);
      continue;
    }
    nodes.push(first);
    if (topic === ensEventTopics.newOwner && second !== undefined) nodes.push(keccak256(concat([first, second])) as Hex);
    if (topic === ensEventTopics.addrChanged) {
      const address = wordAddress(data.slice(2, 66));
      if (address !== null && address !== ZERO_ADDRESS) addresses.push(address);
    }
  }
  return { addresses, nodes };
}
