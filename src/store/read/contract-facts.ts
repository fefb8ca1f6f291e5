import type { Address, AddressTagType, ProxyType } from '../../model.js';
import { byteaFromHex, hexFromBytea } from '../encode.js';
import { planStableStatement } from './plan-stable.js';
import type { Db } from './sql.js';

/** A proxy's implementations in order, each with its verified contract's name (null when unverified). */
export interface ProxyImplementations {
  proxyType: ProxyType;
  implementations: { address: Address; name: string | null }[];
}

/** A tag of the operator's tags file, as the API shows it. */
export interface AddressTagItem {
  slug: string;
  name: string;
  tagType: AddressTagType;
  ordinal: number;
  meta: Record<string, unknown> | null;
}

/**
 * What is known of an address beyond the chain's lists: of a contract, its verified name, its token's
 * name, its proxy; of any address, its primary ENS name (checked forward) and the operator's tags.
 */
export interface ContractFacts {
  /** The name of its own verified source; null when it is not verified (a bytecode twin's source does not count). */
  verifiedName: string | null;
  tokenName: string | null;
  proxy: ProxyImplementations | null;
  ensName: string | null;
  /** In ordinal order, then by slug. */
  tags: AddressTagItem[];
}

interface FactsRow {
  hash: Buffer;
  verified_name: string | null;
  token_name: string | null;
  proxy_type: ProxyType | null;
  implementations: Buffer[] | null;
  implementation_names: (string | null)[] | null;
  ens_name: string | null;
  tags: { slug: string; name: string; tag_type: AddressTagType; ordinal: number; meta: Record<string, unknown> | null }[] | null;
}

const contractFactsStatement = planStableStatement(
  `SELECT a.hash, v.name AS verified_name, t.name AS token_name, p.proxy_type, p.implementations,
       (SELECT array_agg(iv.name ORDER BY i.n) FROM unnest(p.implementations) WITH ORDINALITY i(address, n)
          LEFT JOIN verified_contracts iv ON iv.address = i.address) AS implementation_names,
       e.name AS ens_name,
       (SELECT json_agg(json_build_object('slug', g.slug, 'name', g.name, 'tag_type', g.tag_type, 'ordinal', g.ordinal, 'meta', g.meta)
                        ORDER BY g.ordinal, g.slug)
          FROM address_tags g WHERE g.address = a.hash) AS tags
     FROM unnest($1::bytea[]) a(hash)
     LEFT JOIN verified_contracts v ON v.address = a.hash
     LEFT JOIN tokens t ON t.address = a.hash
     LEFT JOIN proxy_implementations p ON p.address = a.hash
     LEFT JOIN ens_names e ON e.address = a.hash AND e.name IS NOT NULL
     WHERE v.address IS NOT NULL OR t.address IS NOT NULL OR p.address IS NOT NULL OR e.address IS NOT NULL
        OR EXISTS (SELECT 1 FROM address_tags g WHERE g.address = a.hash)`,
);

/**
 * The facts of the given addresses, in one query; an address without any (an account without a name
 * or a tag, an unverified contract that is neither a token nor a proxy) is not in the map.
 */
export async function readContractFacts(db: Db, addresses: Iterable<Address>): Promise<Map<Address, ContractFacts>> {
  const hashes = [...new Set([...addresses].map((a) => a.toLowerCase()))];
  const facts = new Map<Address, ContractFacts>();
  if (hashes.length === 0) return facts;
  const { rows } = await db.query<FactsRow>(contractFactsStatement, [hashes.map((h) => byteaFromHex(h as Address))]);
  for (const r of rows) {
    facts.set(hexFromBytea(r.hash), {
      verifiedName: r.verified_name,
      tokenName: r.token_name,
      proxy: r.proxy_type === null ? null : proxyImplementations(r.proxy_type, r.implementations ?? [], r.implementation_names ?? []),
      ensName: r.ens_name,
      tags: (r.tags ?? []).map((g) => ({ slug: g.slug, name: g.name, tagType: g.tag_type, ordinal: g.ordinal, meta: g.meta })),
    });
  }
  return facts;
}

/**
 * The implementations of the given proxies, with their verified names, in one query: what a call
 * through a proxy is decoded with. An address that is no known proxy is not in the map.
 */
export async function readProxyImplementations(db: Db, addresses: Iterable<Address>): Promise<Map<Address, ProxyImplementations>> {
  const facts = await readContractFacts(db, addresses);
  return new Map([...facts].flatMap(([address, f]) => (f.proxy === null ? [] : [[address, f.proxy] as const])));
}

function proxyImplementations(proxyType: ProxyType, implementations: Buffer[], names: (string | null)[]): ProxyImplementations {
  return { proxyType, implementations: implementations.map((a, i) => ({ address: hexFromBytea(a), name: names[i] ?? null })) };
}
