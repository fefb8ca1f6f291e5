import { readFile, stat } from 'node:fs/promises';
import { type Address, type AddressTagRecord, type AddressTagType, addressTagTypes } from '../model.js';

/**
 * The operator's tags file: a JSON array of entries `{address, label, tag_type, slug?, ordinal?, meta?}`
 * (see the README's Names and tags). Read whole; an entry that does not fit makes the whole file
 * rejected, with the entry and the member named, so that a typo never drops a tag silently.
 */

/** What tells one version of the file from another without reading it. */
export interface TagsFileVersion {
  modifiedMs: number;
  size: number;
}

export async function tagsFileVersion(path: string): Promise<TagsFileVersion> {
  const { mtimeMs, size } = await stat(path);
  return { modifiedMs: mtimeMs, size };
}

export class TagsFileError extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A slug from a label: lowercase letters and digits, other runs a dash. */
export const slugOf = (label: string): string =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function entryTag(entry: unknown, index: number): AddressTagRecord {
  const fail = (detail: string) => new TagsFileError(`entry ${index}: ${detail}`);
  if (!isObject(entry)) throw fail('is not an object');
  const { address, label, tag_type: tagType, slug, ordinal, meta } = entry;
  if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) throw fail('address must be 0x and 40 hex digits');
  if (typeof label !== 'string' || label.trim() === '') throw fail('label must be a non-empty string');
  if (typeof tagType !== 'string' || !(addressTagTypes as readonly string[]).includes(tagType)) {
    throw fail(`tag_type must be one of ${addressTagTypes.join(', ')}`);
  }
  if (slug !== undefined && (typeof slug !== 'string' || slug === '')) throw fail('slug must be a non-empty string');
  if (ordinal !== undefined && !Number.isSafeInteger(ordinal)) throw fail('ordinal must be an integer');
  if (meta !== undefined && meta !== null && !isObject(meta)) throw fail('meta must be an object');
  const finalSlug = slug ?? slugOf(label);
  if (finalSlug === '') throw fail('label has no letter or digit to make a slug of; give a slug');
  return {
    address: address.toLowerCase() as Address,
    slug: finalSlug,
    name: label,
    tagType: tagType as AddressTagType,
    ordinal: (ordinal as number | undefined) ?? 0,
    meta: (meta as Record<string, unknown> | undefined) ?? null,
  };
}

/** The tags of a file's text; a TagsFileError names what does not fit. */
export function parseTagsFile(text: string): AddressTagRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new TagsFileError(`not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new TagsFileError('must be a JSON array of tags');
  const tags = parsed.map(entryTag);
  const seen = new Set<string>();
  for (const [i, tag] of tags.entries()) {
    const key = `${tag.address} ${tag.slug}`;
    if (seen.has(key)) throw new TagsFileError(`entry ${i}: a second tag "${tag.slug}" for ${tag.address}`);
    seen.add(key);
  }
  return tags;
}

export async function readTagsFile(path: string): Promise<AddressTagRecord[]> {
  return parseTagsFile(await readFile(path, 'utf8'));
}
