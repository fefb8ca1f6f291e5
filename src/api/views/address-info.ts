import { type Static, Type } from '@sinclair/typebox';
import type { AddressItem } from '../../store/read/sql.js';
import { Nullable } from '../schemas.js';
import { checksumAddress } from './checksum-address.js';

/** One of an address's public tags, as Blockscout renders them. */
export const PublicTagSchema = Type.Object({ address_hash: Type.String(), display_name: Type.String(), label: Type.String() });

/** An address's tags in the shape of Blockscout's metadata service. */
export const AddressMetadataSchema = Type.Object({
  tags: Type.Array(
    Type.Object({
      meta: Nullable(Type.Object({}, { additionalProperties: true })),
      name: Type.String(),
      ordinal: Type.Integer(),
      slug: Type.String(),
      tagType: Type.String(),
    }),
  ),
});

/**
 * An embedded address (from, to, miner, receiver, created_contract), keys in alphabetical order. Its
 * contract's name, verification and proxy, its primary ENS name and its tags are filled in once the
 * answer is built (contract-facts.ts); private tags and watchlists are not kept: always [].
 */
export const AddressInfoSchema = Type.Object({
  ens_domain_name: Nullable(Type.String()),
  hash: Type.String(),
  implementation_name: Nullable(Type.String()),
  implementations: Type.Array(Type.Object({ address_hash: Type.String(), name: Nullable(Type.String()) })),
  is_contract: Type.Boolean(),
  is_scam: Type.Boolean(),
  is_verified: Nullable(Type.Boolean()),
  metadata: Nullable(AddressMetadataSchema),
  name: Nullable(Type.String()),
  private_tags: Type.Array(Type.Object({})),
  proxy_type: Nullable(Type.String()),
  public_tags: Type.Array(PublicTagSchema),
  reputation: Type.String(),
  watchlist_names: Type.Array(Type.Object({})),
});

export type AddressInfo = Static<typeof AddressInfoSchema>;

export function addressInfo(address: AddressItem): AddressInfo {
  return {
    ens_domain_name: null,
    hash: checksumAddress(address.hash),
    implementation_name: null,
    implementations: [],
    is_contract: address.isContract === true,
    is_scam: false,
    // As Blockscout, whose every indexed address has a row: false unless its contract is verified.
    is_verified: false,
    metadata: null,
    name: null,
    private_tags: [],
    proxy_type: null,
    public_tags: [],
    reputation: 'ok',
    watchlist_names: [],
  };
}

/**
 * An address as the schemas that do not list implementation_name take it (Blockscout's AddressResponse
 * and the holder in its TokenHolderResponse), which forbid members they do not list.
 */
export const BareAddressInfoSchema = Type.Omit(AddressInfoSchema, ['implementation_name']);

export function bareAddressInfo(address: AddressItem): Static<typeof BareAddressInfoSchema> {
  const { implementation_name: _, ...bare } = addressInfo(address);
  return bare;
}
