import { type Static, Type } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';
import { AddressInfoSchema } from './address-info.js';
import { TokenSchema } from './token.js';

/** An NFT instance as the list endpoints embed it: owner and is_unique are not computed there (null). */
export const TokenInstanceSchema = Type.Object({
  animation_url: Nullable(Type.String()),
  external_app_url: Nullable(Type.String()),
  id: Type.String(),
  image_url: Nullable(Type.String()),
  is_unique: Nullable(Type.Boolean()),
  metadata: Nullable(Type.Unknown()),
  owner: Nullable(AddressInfoSchema),
  token: Nullable(TokenSchema),
});

export type TokenInstance = Static<typeof TokenInstanceSchema>;

type Metadata = Record<string, unknown>;

const isMetadata = (value: unknown): value is Metadata => typeof value === 'object' && value !== null && !Array.isArray(value);

const nonBlankString = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** The image: the first of image_url, image and properties.image, as Blockscout picks it. */
function imageUrl(metadata: Metadata): string | null {
  const properties = metadata.properties;
  return (
    nonBlankString(metadata.image_url) ??
    nonBlankString(metadata.image) ??
    (isMetadata(properties) ? nonBlankString(properties.image) : null)
  );
}

export function tokenInstanceView(id: bigint, metadata: unknown, token: TokenInstance['token']): TokenInstance {
  const known = isMetadata(metadata) ? metadata : null;
  return {
    animation_url: known === null ? null : nonBlankString(known.animation_url),
    external_app_url: known === null ? null : nonBlankString(known.external_url),
    id: id.toString(),
    image_url: known === null ? null : imageUrl(known),
    is_unique: null,
    metadata: known,
    owner: null,
    token,
  };
}
