import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { keccak256 } from 'viem';

/** A compiler build that can be run: its long version without the leading v, and its soljson file. */
export interface CompilerBuild {
  longVersion: string;
  path: string;
}

interface ReleaseListBuild {
  path: string;
  longVersion: string;
  keccak256?: string;
  sha256?: string;
}

export interface CompilerBuildsOptions {
  cacheDir: string;
  releasesUrl: string | null;
  /** The long version the bundled build reports. */
  bundledVersion: () => Promise<string>;
  logger?: Logger;
}

const LIST_TIMEOUT_MS = 30_000;
const DOWNLOAD_TIMEOUT_MS = 120_000;
/** How long a release list read stays the one used before it is read again. */
const LIST_FRESH_MS = 10 * 60_000;
/** How long after a failed read the list is not asked for again (an unreachable host would slow every call). */
const LIST_RETRY_MS = 60_000;
const CACHED_BUILD = /^soljson-v(.+)\.js$/;
const LONG_VERSION = /^(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?\+commit\.[0-9a-f]+)/;

export const bundledBuildPath = createRequire(import.meta.url).resolve('solc/soljson.js');

/** '0.8.24+commit.e11b9ed9' from 'v0.8.24+commit.e11b9ed9', '0.8.24+commit.e11b9ed9.Emscripten.clang'...; null for anything else. */
export function longVersionOf(version: string): string | null {
  return LONG_VERSION.exec(version.trim().replace(/^v/, ''))?.[1] ?? null;
}

/** Newest first: by major, minor and patch, then a release before its prereleases (nightlies). */
export function compareNewestFirst(a: string, b: string): number {
  const parts = (version: string) => {
    const [, major, minor, patch, pre] = /^(\d+)\.(\d+)\.(\d+)(-[^+]*)?/.exec(version) ?? [];
    return { numbers: [Number(major), Number(minor), Number(patch)], pre: pre ?? '' };
  };
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i += 1) if (x.numbers[i] !== y.numbers[i]) return y.numbers[i]! - x.numbers[i]!;
  if (x.pre !== y.pre) return x.pre === '' ? -1 : y.pre === '' ? 1 : y.pre.localeCompare(x.pre);
  return b.localeCompare(a);
}

function parseReleaseList(text: string): ReleaseListBuild[] {
  const list = JSON.parse(text) as { builds?: unknown };
  if (!Array.isArray(list.builds)) throw new Error('no builds in the release list');
  return list.builds.filter(
    (build): build is ReleaseListBuild =>
      typeof build === 'object' &&
      build !== null &&
      typeof (build as ReleaseListBuild).path === 'string' &&
      CACHED_BUILD.test((build as ReleaseListBuild).path) &&
      typeof (build as ReleaseListBuild).longVersion === 'string',
  );
}

/** Writes a file whole or not at all: to a temporary name beside it, then renamed. */
async function writeAtomically(path: string, data: Uint8Array | string): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

function checkHashes(data: Uint8Array, build: ReleaseListBuild): void {
  const sha256 = createHash('sha256').update(data).digest('hex');
  if (build.sha256 !== undefined && build.sha256.replace(/^0x/, '').toLowerCase() !== sha256) {
    throw new Error(`its sha256 is 0x${sha256}, the release list says ${build.sha256}`);
  }
  const keccak = keccak256(data);
  if (build.keccak256 !== undefined && build.keccak256.toLowerCase() !== keccak) {
    throw new Error(`its keccak256 is ${keccak}, the release list says ${build.keccak256}`);
  }
  if (build.sha256 === undefined && build.keccak256 === undefined) throw new Error('the release list gives no hash to check it by');
}

/**
 * The compiler builds at hand: the bundled one, those in the cache folder (soljson-v<long version>.js,
 * as the release list names them), and those of the release list, downloaded into the cache on first use.
 */
export class CompilerBuilds {
  private list: { builds: ReleaseListBuild[]; readAt: number } | null = null;
  private listFailedAt = -Infinity;
  private listReading: Promise<ReleaseListBuild[] | null> | null = null;
  private readonly downloads = new Map<string, Promise<CompilerBuild>>();

  constructor(private readonly options: CompilerBuildsOptions) {}

  /** The build of a version, downloading it if needed; an Error whose message tells the user why not. */
  async resolve(version: string): Promise<CompilerBuild | Error> {
    const longVersion = longVersionOf(version);
    if (longVersion === null) return new Error(`Invalid compiler version: ${version}`);
    const bundled = longVersionOf(await this.options.bundledVersion());
    if (bundled === longVersion) return { longVersion, path: bundledBuildPath };
    const cached = (await this.cachedBuilds()).find((build) => build.longVersion === longVersion);
    if (cached) return cached;
    const listed = (await this.releaseList())?.find((build) => longVersionOf(build.longVersion) === longVersion);
    if (!listed) return new Error(`Compiler version not found: v${longVersion}`);
    let download = this.downloads.get(longVersion);
    if (!download) {
      download = this.download(listed).finally(() => this.downloads.delete(longVersion));
      this.downloads.set(longVersion, download);
    }
    try {
      return await download;
    } catch (err) {
      this.options.logger?.warn({ err, version: longVersion }, 'compiler download failed');
      return new Error(`Compiler version v${longVersion} could not be downloaded: ${(err as Error).message}`);
    }
  }

  /**
   * The long versions (with their v) that can be compiled now, newest first: the release list as last
   * read (a read it starts is not waited for, so that no answer waits on the network).
   */
  async versions(): Promise<string[]> {
    const versions = new Set<string>();
    const bundled = longVersionOf(await this.options.bundledVersion());
    if (bundled) versions.add(bundled);
    for (const build of await this.cachedBuilds()) versions.add(build.longVersion);
    void this.releaseList();
    for (const build of this.list?.builds ?? []) {
      const longVersion = longVersionOf(build.longVersion);
      if (longVersion) versions.add(longVersion);
    }
    return [...versions].sort(compareNewestFirst).map((version) => `v${version}`);
  }

  private async cachedBuilds(): Promise<CompilerBuild[]> {
    let names: string[];
    try {
      names = await readdir(this.options.cacheDir);
    } catch {
      return [];
    }
    return names.flatMap((name) => {
      const longVersion = longVersionOf(CACHED_BUILD.exec(name)?.[1] ?? '');
      return longVersion === null ? [] : [{ longVersion, path: join(this.options.cacheDir, name) }];
    });
  }

  /** The release list's builds, read again once the last read is old; null when there is none or it cannot be read. */
  private releaseList(): Promise<ReleaseListBuild[] | null> {
    if (this.options.releasesUrl === null) return Promise.resolve(null);
    if (this.list && Date.now() - this.list.readAt < LIST_FRESH_MS) return Promise.resolve(this.list.builds);
    if (Date.now() - this.listFailedAt < LIST_RETRY_MS) return Promise.resolve(null);
    this.listReading ??= this.readReleaseList(this.options.releasesUrl).finally(() => {
      this.listReading = null;
    });
    return this.listReading;
  }

  private async readReleaseList(releasesUrl: string): Promise<ReleaseListBuild[] | null> {
    try {
      const response = await fetch(`${releasesUrl}/bin/list.json`, { signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const text = await response.text();
      const builds = parseReleaseList(text);
      this.list = { builds, readAt: Date.now() };
      await mkdir(this.options.cacheDir, { recursive: true });
      await writeAtomically(join(this.options.cacheDir, 'list.json'), text);
      return builds;
    } catch (err) {
      this.options.logger?.warn({ err, releasesUrl }, 'the compiler release list cannot be read; only local compilers are offered');
      this.list = null;
      this.listFailedAt = Date.now();
      return null;
    }
  }

  private async download(build: ReleaseListBuild): Promise<CompilerBuild> {
    const url = `${this.options.releasesUrl}/bin/${build.path}`;
    const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
    const data = new Uint8Array(await response.arrayBuffer());
    checkHashes(data, build);
    await mkdir(this.options.cacheDir, { recursive: true });
    const path = join(this.options.cacheDir, build.path);
    await writeAtomically(path, data);
    this.options.logger?.info({ version: build.longVersion, path }, 'compiler downloaded');
    return { longVersion: longVersionOf(build.longVersion)!, path };
  }
}
