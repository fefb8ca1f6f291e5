import type { Address, Hex, TokenType } from '../model.js';
import { InvalidNodeResponseError, RpcError } from './errors.js';
import type { RpcClient } from './rpc.js';
import { decodeText } from './token-metadata.js';

const TOKEN_URI = '0xc87b56dd'; // tokenURI(uint256), ERC-721
const URI = '0x0e89341c'; // uri(uint256), ERC-1155

const idWord = (id: bigint): string => id.toString(16).padStart(64, '0');

/**
 * The metadata URI of an NFT id: tokenURI for ERC-721 (and ERC-404), uri for ERC-1155 with its `{id}`
 * replaced by the id as 64 lowercase hex digits. Null when the call reverts or answers no text; a
 * node that does not answer (or answers what no eth_call returns) rejects, to be asked again.
 */
export async function readTokenUri(client: RpcClient, token: Address, type: TokenType, id: bigint): Promise<string | null> {
  const data: Hex = `${type === 'ERC-1155' ? URI : TOKEN_URI}${idWord(id)}`;
  let result: unknown;
  try {
    result = await client.request<unknown>('eth_call', [{ to: token, data }, 'latest']);
  } catch (error) {
    if (error instanceof RpcError) return null;
    throw error;
  }
  if (typeof result !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(result)) {
    throw new InvalidNodeResponseError(`eth_call to ${token}`, '', `is not hex data (${JSON.stringify(result)?.slice(0, 80)})`);
  }
  if (result.length === 66) return null;
  const uri = decodeText(result as Hex);
  return uri === null || type !== 'ERC-1155' ? uri : uri.replaceAll('{id}', idWord(id));
}
