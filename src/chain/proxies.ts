import { decodeAbiParameters } from 'viem';
import { type Address, type Hex, hexQuantity, isHexData, type ProxyRecord, ZERO_ADDRESS } from '../model.js';
import { InvalidNodeResponseError } from './errors.js';
import type { RpcCall, RpcClient } from './rpc.js';
import { settledCalls } from './settled-calls.js';

/** EIP-7702: the code of a delegating account is 0xef0100 followed by the address it delegates to. */
const DELEGATION = /^0xef0100([0-9a-f]{40})$/i;
/** EIP-1167's minimal proxy: the whole runtime code, with the implementation's address inside. */
const MINIMAL_PROXY = /^0x363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/i;

const slots = {
  // EIP-1967: keccak256('eip1967.proxy.implementation') - 1, keccak256('eip1967.proxy.beacon') - 1.
  eip1967: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
  beacon: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
  // EIP-1822: keccak256('PROXIABLE').
  eip1822: '0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7',
  // OpenZeppelin's slot before EIP-1967: keccak256('org.zeppelinos.proxy.implementation').
  eip1967Oz: '0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3',
  // A Safe-style proxy keeps its master copy in the first slot.
  masterCopy: '0x0',
} as const;

const selectors = {
  implementation: '0x5c60da1b',
  facetAddresses: '0x52ef6b2c',
  masterCopy: '0xa619486e',
} as const;

/**
 * Whether `address` is a proxy at `blockNumber`, and what it delegates to: an EIP-7702 delegation or an
 * EIP-1167 minimal proxy by its code; else, in Blockscout's order, a Safe-style master copy (`masterCopy()`
 * answers the address the first slot holds), the EIP-1967 implementation slot, EIP-1822's PROXIABLE
 * slot, the EIP-1967 beacon slot (its beacon's `implementation()`), an EIP-2535 diamond (the loupe's
 * `facetAddresses()`), OpenZeppelin's older slot. Null: none of them, or no code. A slot or call the
 * node refuses for good counts as empty; one it refuses for now rejects the whole check, to be made again.
 */
export async function detectProxy(client: RpcClient, address: Address, blockNumber: bigint): Promise<ProxyRecord | null> {
  const block = hexQuantity(blockNumber);
  const answer = await client.request<unknown>('eth_getCode', [address, block]);
  if (!isHexData(answer)) throw new InvalidNodeResponseError(`eth_getCode of ${address} at block ${blockNumber}`, '', 'is not hex data');
  const code = answer.toLowerCase() as Hex;
  const byCode = DELEGATION.exec(code) ?? MINIMAL_PROXY.exec(code);
  if (byCode !== null) {
    const implementation = `0x${byCode[1]!.toLowerCase()}` as Address;
    return { proxyType: code.startsWith('0xef0100') ? 'eip7702' : 'eip1167', implementations: [implementation], beacon: null };
  }
  if (code === '0x') return null;

  const storage = (slot: string): RpcCall => ({ method: 'eth_getStorageAt', params: [address, slot, block] });
  const call = (to: Address, data: Hex): RpcCall => ({ method: 'eth_call', params: [{ to, data }, block] });
  const [masterCopySlot, eip1967, eip1822, beacon, eip1967Oz, masterCopy, facets] = await settledCalls(client, [
    storage(slots.masterCopy),
    storage(slots.eip1967),
    storage(slots.eip1822),
    storage(slots.beacon),
    storage(slots.eip1967Oz),
    call(address, selectors.masterCopy),
    call(address, selectors.facetAddresses),
  ]);
  const single = (proxyType: ProxyRecord['proxyType'], implementation: Address | null, beaconAddress: Address | null = null) =>
    implementation === null ? null : { proxyType, implementations: [implementation], beacon: beaconAddress };

  const copy = wordAddress(masterCopySlot);
  if (copy !== null && wordAddress(masterCopy) === copy) return single('master_copy', copy);
  const found = single('eip1967', wordAddress(eip1967)) ?? single('eip1822', wordAddress(eip1822));
  if (found !== null) return found;
  const beaconAddress = wordAddress(beacon);
  if (beaconAddress !== null) {
    const [implementation] = await settledCalls(client, [call(beaconAddress, selectors.implementation)]);
    const followed = single('eip1967_beacon', wordAddress(implementation), beaconAddress);
    if (followed !== null) return followed;
  }
  const facetAddresses = addressList(facets);
  if (facetAddresses.length > 0) return { proxyType: 'eip2535', implementations: facetAddresses, beacon: null };
  return single('eip1967_oz', wordAddress(eip1967Oz));
}

/** The address in the low 20 bytes of a 32-byte word whose upper 12 are zero; null for anything else or the zero address. */
function wordAddress(word: Hex | null | undefined): Address | null {
  if (word == null || word.length !== 66 || !/^0x0{24}/.test(word)) return null;
  const address = `0x${word.slice(26).toLowerCase()}` as Address;
  return address === ZERO_ADDRESS ? null : address;
}

/** An ABI-encoded address[], without the zero address; empty where the answer is not one. */
function addressList(data: Hex | null | undefined): Address[] {
  if (data == null || data === '0x') return [];
  try {
    const [list] = decodeAbiParameters([{ type: 'address[]' }], data);
    return list.map((a) => a.toLowerCase() as Address).filter((a) => a !== ZERO_ADDRESS);
  } catch {
    return [];
  }
}
