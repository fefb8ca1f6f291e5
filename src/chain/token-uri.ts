import { type Address, type Hex, type TokenType, isHexData } from '../model.js';
import type { ContractCall, ContractCaller } from './contract-calls.js';
import { decodeText } from './token-metadata.js';

const TOKEN_URI = '0xc87b56dd'; // tokenURI(uint256), ERC-721
const URI = '0x0e89341c'; // uri(uint256), ERC-1155

const idWord = (id: bigint): string => id.toString(16).padStart(64, '0');

export interface NftId {
  token: Address;
  type: TokenType;
  id: bigint;
}

const uriCall = ({ token, type, id }: NftId): ContractCall => ({
  to: token,
  data: `${type === 'ERC-1155' ? URI : TOKEN_URI}${idWord(id)}`,
});

function decodeUri({ type, id }: NftId, data: Hex | null): string | null {
  // One word is what a contract answers that returns a number or an address, not a string.
  if (data === null || isHexData(data, 32)) return null;
  const uri = decodeText(data);
  return uri === null || type !== 'ERC-1155' ? uri : uri.replaceAll('{id}', idWord(id));
}

/**
 * The metadata URIs of NFT ids, all read at once: tokenURI for ERC-721 (and ERC-404), uri for ERC-1155
 * with its `{id}` replaced by the id as 64 lowercase hex digits. Null where the call reverts or answers
 * no text; a node that does not answer (or answers what no eth_call returns) rejects, to be asked again.
 */
export async function readTokenUris(caller: ContractCaller, ids: readonly NftId[]): Promise<(string | null)[]> {
  const answers = await caller.call(ids.map(uriCall));
  return ids.map((nft, i) => decodeUri(nft, answers[i] ?? null));
}
