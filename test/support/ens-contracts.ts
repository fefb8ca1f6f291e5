import { readFileSync } from 'node:fs';
import {
  type Abi,
  type Address,
  type Hex,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  labelhash,
  namehash,
  zeroHash,
} from 'viem';
import type { RpcClient } from '../../src/chain/rpc.js';
import { waitForMined } from './mined.js';

/**
 * ENS as ENS publishes it on npm, compiled: the registry (`@ensdomains/ens`), the public resolver and
 * the reverse registrar (`@ensdomains/resolver`), deployed on a test node, with the `reverse`,
 * `addr.reverse` and `eth` nodes set up as on mainnet.
 */

interface TruffleArtifact {
  abi: Abi;
  bytecode: Hex;
}

const artifact = (pkg: string, name: string): TruffleArtifact =>
  JSON.parse(
    readFileSync(new URL(`../../node_modules/@ensdomains/${pkg}/build/contracts/${name}.json`, import.meta.url), 'utf8'),
  ) as TruffleArtifact;

const registryArtifact = artifact('ens', 'ENSRegistry');
const resolverArtifact = artifact('resolver', 'PublicResolver');
const reverseArtifact = artifact('resolver', 'ReverseRegistrar');

export interface EnsDeployment {
  registry: Address;
  resolver: Address;
  reverseRegistrar: Address;
  /** Registers `label`.eth to `owner`, with the public resolver, its addr record pointing at `target`. */
  register(label: string, owner: Address, target: Address): Promise<void>;
  /** `account` sets its primary name through the reverse registrar. */
  setPrimaryName(account: Address, name: string): Promise<void>;
}

/** Deploys ENS with `deployer` (an unlocked account of the node). */
export async function deployEns(rpcUrl: string, client: RpcClient, deployer: Address): Promise<EnsDeployment> {
  const wallet = createWalletClient({ transport: http(rpcUrl) });
  const reader = createPublicClient({ transport: http(rpcUrl) });
  const mined = async (hash: Hex) => {
    await waitForMined(client, hash);
    return hash;
  };
  const deploy = async ({ abi, bytecode }: TruffleArtifact, args: unknown[]): Promise<Address> => {
    const hash = await mined(await wallet.deployContract({ abi, bytecode, args, account: deployer, chain: null }));
    return (await reader.getTransactionReceipt({ hash })).contractAddress!.toLowerCase() as Address;
  };
  const send = async (account: Address, to: Address, abi: Abi, functionName: string, args: unknown[]) => {
    await mined(await wallet.sendTransaction({ account, to, data: encodeFunctionData({ abi, functionName, args }), chain: null }));
  };

  const registry = await deploy(registryArtifact, []);
  const resolver = await deploy(resolverArtifact, [registry]);
  const reverseRegistrar = await deploy(reverseArtifact, [registry, resolver]);
  const onRegistry = (functionName: string, args: unknown[]) => send(deployer, registry, registryArtifact.abi, functionName, args);
  await onRegistry('setSubnodeOwner', [zeroHash, labelhash('reverse'), deployer]);
  await onRegistry('setSubnodeOwner', [namehash('reverse'), labelhash('addr'), reverseRegistrar]);
  await onRegistry('setSubnodeOwner', [zeroHash, labelhash('eth'), deployer]);

  return {
    registry,
    resolver,
    reverseRegistrar,
    async register(label, owner, target) {
      await onRegistry('setSubnodeRecord', [namehash('eth'), labelhash(label), owner, resolver, 0n]);
      await send(owner, resolver, resolverArtifact.abi, 'setAddr', [namehash(`${label}.eth`), target]);
    },
    async setPrimaryName(account, name) {
      await send(account, reverseRegistrar, reverseArtifact.abi, 'setName', [name]);
    },
  };
}
