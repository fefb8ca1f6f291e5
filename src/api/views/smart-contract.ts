import { type Static, Type } from '@sinclair/typebox';
import type { SmartContractItem, VerifiedContractItem } from '../../store/read/smart-contracts.js';
import { DecimalString, Nullable, StringEnum, decimal } from '../schemas.js';
import { checksumAddress } from './checksum-address.js';

const Implementation = Type.Object({ address_hash: Type.String(), name: Nullable(Type.String()) });

/**
 * Blockscout's SmartContract: the code of any contract, and what its verification found (its own, or
 * its bytecode twin's, named by verified_twin_address_hash). The proxy members are filled where a
 * proxy is detected.
 */
export const SmartContractSchema = Type.Object({
  proxy_type: Nullable(Type.String()),
  implementations: Type.Array(Implementation),
  conflicting_implementations: Nullable(Type.Array(Type.Object({}))),
  deployed_bytecode: Nullable(Type.String()),
  creation_bytecode: Nullable(Type.String()),
  creation_status: Nullable(Type.String()),
  coin_balance: Nullable(DecimalString),
  market_cap: Nullable(Type.String()),
  reputation: Type.String(),
  transactions_count: Type.Integer(),
  verification_metadata: Nullable(Type.Object({})),
  is_verified: Type.Optional(Type.Boolean()),
  is_partially_verified: Type.Optional(Type.Boolean()),
  is_fully_verified: Type.Optional(Type.Boolean()),
  is_changed_bytecode: Type.Optional(Type.Boolean()),
  is_verified_via_sourcify: Type.Optional(Type.Boolean()),
  is_verified_via_eth_bytecode_db: Type.Optional(Type.Boolean()),
  is_verified_via_verifier_alliance: Type.Optional(Type.Boolean()),
  is_blueprint: Type.Optional(Type.Boolean()),
  certified: Type.Optional(Type.Boolean()),
  sourcify_repo_url: Type.Optional(Nullable(Type.String())),
  verified_twin_address_hash: Type.Optional(Nullable(Type.String())),
  name: Type.Optional(Type.String()),
  compiler_version: Type.Optional(Type.String()),
  optimization_enabled: Type.Optional(Type.Boolean()),
  optimization_runs: Type.Optional(Nullable(Type.Integer())),
  evm_version: Type.Optional(Type.String()),
  compiler_settings: Type.Optional(Type.Object({}, { additionalProperties: true })),
  verified_at: Type.Optional(Type.String()),
  abi: Type.Optional(Nullable(Type.Array(Type.Object({}, { additionalProperties: true })))),
  source_code: Type.Optional(Type.String()),
  file_path: Type.Optional(Type.String()),
  additional_sources: Type.Optional(Type.Array(Type.Object({ file_path: Type.String(), source_code: Type.String() }))),
  constructor_args: Type.Optional(Nullable(Type.String())),
  decoded_constructor_args: Type.Optional(Nullable(Type.Array(Type.Array(Type.Unknown())))),
  has_constructor_args: Type.Optional(Type.Boolean()),
  external_libraries: Type.Optional(Type.Array(Implementation)),
  language: Type.Optional(StringEnum(['solidity', 'vyper', 'yul'])),
  license_type: Type.Optional(Type.String()),
  can_be_visualized_via_sol2uml: Type.Optional(Type.Boolean()),
});

export type SmartContract = Static<typeof SmartContractSchema>;

/** What the contract's proxy detection found; none where it found nothing. */
export interface ProxyFacts {
  proxyType: string | null;
  implementations: { addressHash: string; name: string | null }[];
}

const noProxy: ProxyFacts = { proxyType: null, implementations: [] };

function verifiedView(v: VerifiedContractItem, own: boolean, decodedConstructorArgs: unknown[][] | null): Partial<SmartContract> {
  return {
    is_verified: true,
    is_partially_verified: v.match === 'partial',
    is_fully_verified: v.match === 'full',
    is_changed_bytecode: false,
    is_verified_via_sourcify: false,
    is_verified_via_eth_bytecode_db: false,
    is_verified_via_verifier_alliance: false,
    is_blueprint: false,
    certified: false,
    sourcify_repo_url: null,
    verified_twin_address_hash: own ? null : checksumAddress(v.address),
    name: v.name,
    compiler_version: v.compilerVersion,
    optimization_enabled: v.optimizationEnabled,
    optimization_runs: v.optimizationRuns,
    evm_version: v.evmVersion,
    compiler_settings: v.compilerSettings,
    verified_at: v.verifiedAt,
    abi: v.abi as SmartContract['abi'],
    source_code: v.sourceCode,
    file_path: v.filePath,
    additional_sources: v.additionalSources.map((s) => ({ file_path: s.filePath, source_code: s.sourceCode })),
    constructor_args: own ? v.constructorArgs : null,
    decoded_constructor_args: own ? decodedConstructorArgs : null,
    has_constructor_args: own && v.constructorArgs !== null && v.constructorArgs !== '0x',
    external_libraries: v.externalLibraries.map((l) => ({ name: l.name, address_hash: checksumAddress(l.addressHash) })),
    language: v.language,
    license_type: v.licenseType ?? 'none',
    can_be_visualized_via_sol2uml: v.language === 'solidity',
  };
}

/** The smart-contract page of the contract at `address`. */
export function smartContractView(
  address: string,
  item: SmartContractItem,
  parts: { proxy?: ProxyFacts; decodedConstructorArgs?: unknown[][] | null } = {},
): SmartContract {
  const proxy = parts.proxy ?? noProxy;
  const selfDestructed = item.runtimeCode === '0x';
  return {
    proxy_type: proxy.proxyType,
    implementations: proxy.implementations.map((i) => ({ address_hash: checksumAddress(i.addressHash), name: i.name })),
    conflicting_implementations: null,
    deployed_bytecode: item.runtimeCode,
    creation_bytecode: item.creationCode,
    creation_status: selfDestructed ? 'selfdestructed' : item.creationCode === null ? null : 'success',
    coin_balance: decimal(item.coinBalance),
    market_cap: item.marketCap,
    reputation: 'ok',
    transactions_count: item.transactionsCount,
    verification_metadata: null,
    ...(item.verified === null
      ? {}
      : verifiedView(item.verified, item.verified.address.toLowerCase() === address.toLowerCase(), parts.decodedConstructorArgs ?? null)),
  };
}
