import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { KnownSignature } from '../model.js';

/** A name and a parenthesised type list, which is all a 4byte signature holds. */
const signatureForm = /^([A-Za-z_$][A-Za-z0-9_$]*)\(.*\)$/;

function known(type: KnownSignature['type'], hashes: Record<string, string>, hashDigits: number): KnownSignature[] {
  const found: KnownSignature[] = [];
  for (const [hash, signature] of Object.entries(hashes)) {
    const name = signatureForm.exec(signature)?.[1];
    if (name === undefined || hash.length !== hashDigits || !/^[0-9a-f]+$/.test(hash)) continue;
    found.push({ type, selector: `0x${hash.slice(0, 8)}`, signature, name });
  }
  return found;
}

const directory = (): string => dirname(createRequire(import.meta.url).resolve('sevm/4bytedb'));
const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(join(directory(), file), 'utf8')) as T;

/** Names the shipped signature database: another version is another source, loaded in place of this one. */
export async function signatureDatabaseSource(): Promise<string> {
  const { version } = await readJson<{ version: string }>('../package.json');
  return `sevm ${version} 4bytedb`;
}

/**
 * The signature database Sextant ships: that of the npm package `sevm` (MIT), 120,750 function and
 * error signatures by selector and 19,310 event signatures by topic, one signature per hash. Read from
 * its JSON files whole (about 6.5 MB) by the process that loads them into PostgreSQL, once per source.
 */
export async function readSignatureDatabase(): Promise<KnownSignature[]> {
  const [functions, events] = await Promise.all([
    readJson<Record<string, string>>('functionHashes.min.json'),
    readJson<Record<string, string>>('eventHashes.min.json'),
  ]);
  return [...known('function', functions, 8), ...known('event', events, 64)];
}
