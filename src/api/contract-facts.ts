import type { Address } from '../model.js';
import { type ContractFacts, readContractFacts } from '../store/read/contract-facts.js';
import type { Db } from '../store/read/sql.js';
import type { ApiApp } from './route.js';
import type { EnsInfo } from './views/search-result.js';
import { checksumAddress } from './views/checksum-address.js';
import { ensInfo } from './views/search-result.js';

/** Proxy kinds whose contract counts as verified when all its implementations are (Blockscout's minimal proxies). */
const verifiedThroughImplementations = new Set(['eip1167', 'eip7702']);

/** An embedded address as the views build it (AddressInfo, or its bare form on the address page and holders). */
interface EmbeddedAddress {
  hash: string;
  ens_domain_name: string | null;
  public_tags: { address_hash: string; display_name: string; label: string }[];
  metadata: { tags: { slug: string; name: string; tagType: string; ordinal: number; meta: Record<string, unknown> | null }[] } | null;
  name: string | null;
  is_verified: boolean | null;
  proxy_type: string | null;
  implementations: { address_hash: string; name: string | null }[];
  implementation_name?: string | null;
}

/** A search result that is an address or a token (an address result carries `ens_info`). */
interface FoundAddress {
  address_hash: string;
  name: string | null;
  is_smart_contract_verified: boolean;
  ens_info?: EnsInfo | null;
}

const isEmbeddedAddress = (value: Record<string, unknown>): value is Record<string, unknown> & EmbeddedAddress =>
  typeof value.hash === 'string' &&
  'is_verified' in value &&
  'proxy_type' in value &&
  Array.isArray(value.implementations) &&
  'ens_domain_name' in value &&
  Array.isArray(value.public_tags) &&
  'metadata' in value;

const isFoundAddress = (value: Record<string, unknown>): value is Record<string, unknown> & FoundAddress =>
  typeof value.address_hash === 'string' && typeof value.is_smart_contract_verified === 'boolean';

/** A JSON object as a view builds it, not a class instance (a reply, a stream, a buffer). */
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value));

interface Addresses {
  embedded: EmbeddedAddress[];
  found: FoundAddress[];
}

/** Every embedded address and address search result in an answer, however deep. */
function addressesIn(value: unknown, addresses: Addresses = { embedded: [], found: [] }): Addresses {
  if (Array.isArray(value)) {
    for (const item of value) addressesIn(item, addresses);
  } else if (isPlainObject(value)) {
    if (isEmbeddedAddress(value)) addresses.embedded.push(value);
    else if (isFoundAddress(value)) addresses.found.push(value);
    for (const member of Object.values(value)) addressesIn(member, addresses);
  }
  return addresses;
}

/**
 * Fills in what is known of the embedded addresses of an answer, as Blockscout renders them: of a
 * contract, `name` (the verified contract's, else its token's), `is_verified`, `proxy_type`,
 * `implementations` and `implementation_name` (the first implementation's); of any address,
 * `ens_domain_name`, `public_tags` and `metadata`. One query for all the addresses of the answer,
 * rather than joins in every list's query.
 */
export async function fillContractFacts(db: Db, answer: unknown): Promise<void> {
  const { embedded, found } = addressesIn(answer);
  if (embedded.length === 0 && found.length === 0) return;
  const facts = await readContractFacts(db, [...embedded.map((a) => a.hash), ...found.map((a) => a.address_hash)].map(lowercase));
  if (facts.size === 0) return;
  for (const address of embedded) {
    const known = facts.get(lowercase(address.hash));
    if (known !== undefined) fill(address, known);
  }
  for (const address of found) {
    const known = facts.get(lowercase(address.address_hash));
    if (known === undefined) continue;
    address.is_smart_contract_verified = verified(known);
    address.name ??= known.verifiedName ?? known.tokenName;
    if (address.ens_info === null && known.ensName !== null) address.ens_info = ensInfo(address.address_hash, known.ensName);
  }
}

const lowercase = (hash: string) => hash.toLowerCase() as Address;

/** Verified from its own source, or a minimal proxy whose implementations all are (as Blockscout counts it). */
function verified({ verifiedName, proxy }: ContractFacts): boolean {
  if (verifiedName !== null) return true;
  if (proxy === null || !verifiedThroughImplementations.has(proxy.proxyType)) return false;
  return proxy.implementations.length > 0 && proxy.implementations.every((i) => i.name !== null);
}

function fill(address: EmbeddedAddress, facts: ContractFacts): void {
  address.ens_domain_name = facts.ensName;
  const publicTags = facts.tags.filter((t) => t.tagType === 'public');
  const metadataTags = facts.tags.filter((t) => t.tagType !== 'public');
  address.public_tags = publicTags.map((t) => ({ address_hash: address.hash, display_name: t.name, label: t.slug }));
  address.metadata =
    metadataTags.length === 0
      ? null
      : { tags: metadataTags.map((t) => ({ slug: t.slug, name: t.name, tagType: t.tagType, ordinal: t.ordinal, meta: t.meta })) };
  address.name = facts.verifiedName ?? facts.tokenName;
  if (verified(facts)) address.is_verified = true;
  const { proxy } = facts;
  if (proxy === null) return;
  address.proxy_type = proxy.proxyType;
  address.implementations = proxy.implementations.map((i) => ({ address_hash: checksumAddress(i.address), name: i.name }));
  if ('implementation_name' in address) address.implementation_name = proxy.implementations[0]?.name ?? null;
}

/**
 * Fills the contract facts of every answer an API route's handler resolves to (call before the routes
 * are added, and before trackRequests, so that the query runs as the request's work). A handler that
 * sends its answer itself (static files) is left alone.
 */
export function registerContractFacts(app: ApiApp, db: Db): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    const handler = route.handler;
    route.handler = function (request, reply) {
      const answer: unknown = handler.call(this, request, reply);
      if (!(answer instanceof Promise)) return answer;
      return answer.then(async (resolved: unknown) => {
        await fillContractFacts(db, resolved);
        return resolved;
      });
    };
  });
}
