import type { Hex } from '../../src/model.js';
import { abiString, uintWord } from './abi.js';
import { Kind, readAddress } from './keys.js';

const selectors: Record<string, string> = {
  '0x06fdde03': 'name',
  '0x95d89b41': 'symbol',
  '0x313ce567': 'decimals',
  '0x18160ddd': 'totalSupply',
  '0xc87b56dd': 'tokenURI',
  '0x0e89341c': 'uri',
};

const labels: Partial<Record<Kind, string>> = { [Kind.Erc20]: 'Token', [Kind.Erc721]: 'Collection', [Kind.Erc1155]: 'Multi' };

/**
 * What the generated chain's contracts return to an eth_call: ERC-20 and ERC-721 tokens answer name,
 * symbol and total supply, ERC-20 tokens their decimals too, NFTs a data: URI with their metadata.
 * Null where the call reverts (an ERC-1155 contract has no name; nothing else has code).
 */
export function contractAnswer(to: string, data: string): Hex | null {
  const contract = readAddress(to);
  const label = contract === null ? undefined : labels[contract.kind];
  if (contract === null || label === undefined) return null;
  const method = selectors[data.slice(0, 10).toLowerCase()];
  const fungible = contract.kind === Kind.Erc20;
  switch (method) {
    case 'name':
      return contract.kind === Kind.Erc1155 ? null : abiString(`${label} ${contract.n}`);
    case 'symbol':
      return contract.kind === Kind.Erc1155 ? null : abiString(`${label.slice(0, 1)}${contract.n}`);
    case 'decimals':
      return fungible ? `0x${uintWord(18)}` : null;
    case 'totalSupply':
      return contract.kind === Kind.Erc1155 ? null : `0x${uintWord(fungible ? 10n ** 27n : 1_000n)}`;
    case 'tokenURI':
    case 'uri': {
      const id = BigInt(`0x${data.slice(10, 74) || '0'}`);
      const document = JSON.stringify({ name: `${label} ${contract.n} #${id}`, image: `https://nft.example/${contract.n}/${id}.png` });
      return abiString(`data:application/json;base64,${Buffer.from(document).toString('base64')}`);
    }
    default:
      return null;
  }
}
