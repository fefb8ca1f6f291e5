import { type Static, Type } from '@sinclair/typebox';
import type { TokenInstanceItem } from '../../store/read/token-instances.js';
import type { TokenItem } from '../../store/read/tokens.js';
import { Nullable } from '../schemas.js';
import { AddressInfoSchema, addressInfo } from './address-info.js';
import { TokenSchema, tokenView } from './token.js';

/**
 * An NFT instance as the list endpoints embed it: owner and is_unique are not computed there (null).
 * Media are not fetched, so there are no thumbnails and no media type; media_url is the metadata's own.
 */
export const TokenInstanceSchema = Type.Object({
  animation_url: Nullable(Type.String()),
  external_app_url: Nullable(Type.String()),
  id: Type.String(),
  image_url: Nullable(Type.String()),
  is_unique: Nullable(Type.Boolean()),
  media_type: Type.Null(),
  media_url: Nullable(Type.String()),
  // Any JSON object: typed, so that a schema holding it can be compiled for validation too (a union beside it needs that).
  metadata: Nullable(Type.Object({}, { additionalProperties: true })),
  owner: Nullable(AddressInfoSchema),
  thumbnails: Type.Null(),
  token: Nullable(TokenSchema),
});

export type TokenInstance = Static<typeof TokenInstanceSchema>;

type Metadata = Record<string, unknown>;

const isMetadata = (value: unknown): value is Metadata => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A metadata member that is an absolute URL (Blockscout's schema types these fields as URIs). */
const url = (value: unknown): string | null => (typeof value === 'string' && URL.canParse(value) ? value : null);

/** The image: the first of image_url, image and properties.image, as Blockscout picks it. */
function imageUrl(metadata: Metadata): string | null {
  const properties = metadata.properties;
  return url(metadata.image_url) ?? url(metadata.image) ?? (isMetadata(properties) ? url(properties.image) : null);
}

export function tokenInstanceView(id: bigint, metadata: unknown, token: TokenInstance['token']): TokenInstance {
  const known = isMetadata(metadata) ? metadata : null;
  const image = known === null ? null : imageUrl(known);
  const animation = known === null ? null : url(known.animation_url);
  return {
    animation_url: animation,
    external_app_url: known === null ? null : url(known.external_url),
    id: id.toString(),
    image_url: image,
    is_unique: null,
    media_type: null,
    media_url: image ?? animation,
    metadata: known,
    owner: null,
    thumbnails: null,
    token,
  };
}

/**
 * An NFT instance of a token's own pages, with its owner as Blockscout decides it: an ERC-721 (or
 * ERC-404) id is unique and owned by the recipient of its latest transfer; an ERC-1155 id is unique
 * when one holder has a balance of exactly 1 of it, who is then its owner, and has no owner otherwise.
 */
export function ownedTokenInstanceView(item: TokenInstanceItem, token: TokenItem): TokenInstance {
  const view = tokenInstanceView(item.tokenId, item.metadata, tokenView(token));
  if (token.type !== 'ERC-1155')
    return Object.assign(view, { is_unique: true, owner: item.owner === null ? null : addressInfo(item.owner) });
  const [sole, other] = item.holders;
  const unique = sole !== undefined && other === undefined && sole.value === 1n;
  return Object.assign(view, { is_unique: unique, owner: unique ? addressInfo(sole.address) : null });
}
