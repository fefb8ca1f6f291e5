import { secp256k1 } from '@noble/curves/secp256k1';
import { concatHex, keccak256, numberToHex, toHex, toRlp } from 'viem';
import type { Address, AuthorizationRecord, Hex } from '../model.js';
import { type Complain, nodeFields } from './node-fields.js';

/** An EIP-7702 authorization as nodes send it in a set-code transaction's `authorizationList`. */
interface RpcAuthorization {
  chainId: string;
  address: string;
  nonce: string;
  yParity: string;
  r: string;
  s: string;
}

/** Checks one authorization of a set-code transaction and recovers its signer. */
export function decodeAuthorization(authorization: unknown, path: string, complain: Complain): AuthorizationRecord {
  const fields = nodeFields<RpcAuthorization>(authorization, path, complain);
  const decoded = {
    chainId: fields.quantity('chainId'),
    address: fields.address('address'),
    nonce: fields.quantity('nonce'),
    yParity: fields.smallNumber('yParity'),
    r: fields.quantity('r'),
    s: fields.quantity('s'),
  };
  return Object.assign(decoded, { authority: recoverAuthority(decoded) });
}

/**
 * The account that signed the authorization (EIP-7702: the signature over keccak256(0x05 ‖
 * rlp([chain_id, address, nonce]))), or null when the signature is one the protocol refuses: a y
 * parity other than 0 or 1, r or s out of range, s in the upper half of the curve order, or a point
 * that recovers no key.
 */
function recoverAuthority(authorization: Omit<AuthorizationRecord, 'authority'>): Address | null {
  const { chainId, address, nonce, yParity, r, s } = authorization;
  if (yParity > 1) return null;
  try {
    const signature = new secp256k1.Signature(r, s).addRecoveryBit(yParity);
    if (signature.hasHighS()) return null;
    const digest = keccak256(concatHex(['0x05', toRlp([rlpQuantity(chainId), address, rlpQuantity(nonce)])])).slice(2);
    const publicKey = signature.recoverPublicKey(digest).toRawBytes(false);
    return `0x${keccak256(toHex(publicKey.subarray(1))).slice(-40)}` as Hex;
  } catch {
    return null;
  }
}

/** RLP writes an integer as its big-endian bytes with no leading zeros: zero is the empty string. */
const rlpQuantity = (value: bigint): Hex => (value === 0n ? '0x' : numberToHex(value));
