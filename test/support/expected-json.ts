// Blockscout's JSON as the tests expect it, written out here independently of the view code under test.

/** An AddressInfo object (Blockscout's `address` schema) as Blockscout renders it. */
export interface ExpectedAddressInfo {
  ens_domain_name: null;
  hash: string;
  implementation_name: null;
  implementations: [];
  is_contract: boolean;
  is_scam: false;
  is_verified: false;
  metadata: null;
  name: null;
  private_tags: [];
  proxy_type: null;
  public_tags: [];
  reputation: 'ok';
  watchlist_names: [];
}

/** The AddressInfo of an address with no name, tags, ENS domain, verified source or proxy. */
export function expectedAddressInfo(hash: string, isContract = false): ExpectedAddressInfo {
  return {
    ens_domain_name: null,
    hash,
    implementation_name: null,
    implementations: [],
    is_contract: isContract,
    is_scam: false,
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

/** A block timestamp (Unix seconds) as Blockscout writes it: ISO 8601 in UTC with microseconds. */
export function expectedTimestamp(seconds: number | bigint): string {
  return new Date(Number(seconds) * 1000).toISOString().replace('Z', '000Z');
}

/**
 * A percentage as Blockscout computes it (gas used, gas target, burnt fees): the exact quotient to 40
 * digits, then one rounding to a double.
 */
export function expectedPercentage(numerator: bigint, denominator: bigint): number {
  return Number(`${(numerator * 10n ** 42n) / denominator}e-40`);
}

/** The method names the API knows, with their selectors (the `method` filter and field). */
export const knownMethodSelectors = {
  transfer: '0xa9059cbb',
  approve: '0x095ea7b3',
  multicall: '0x5ae401dc',
  mint: '0x40c10f19',
  commit: '0xf14fcbc8',
} as const;

/** The name of a known method, by its selector. */
export const knownMethodNames: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(knownMethodSelectors).map(([name, selector]) => [selector, name]),
);
