import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createWalletClient, http, keccak256, toHex, type Abi, type Address, type Hex } from 'viem';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import type { ChainView, ContractCreation } from '../../src/verification/index.js';
import { waitForMined } from './mined.js';

/**
 * What the verification tests share: the fixture contracts compiled here with solc-js (apart from the
 * engine), deployed on anvil, and a ChainView answered from the node itself.
 */

export interface SolcJs {
  version(): string;
  compile(input: string): string;
}

const require = createRequire(import.meta.url);
const setupMethods = require('solc/wrapper.js') as (soljson: unknown) => SolcJs;

/** A solc-js build loaded in this process: 'solc' (the bundled 0.8.37) or an npm alias such as 'solc-0.8.24'. */
export function loadSolc(pkg: string): SolcJs {
  return setupMethods(require(`${pkg}/soljson.js`));
}

export const fixture = (file: string): string =>
  readFileSync(new URL(`../fixtures/contracts/verification/${file}`, import.meta.url), 'utf8');

export interface StandardInput {
  language: 'Solidity';
  sources: Record<string, { content: string }>;
  settings: Record<string, unknown>;
}

export interface CompiledContract {
  abi: Abi;
  metadata: string;
  evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
}

export interface Compiled {
  input: StandardInput;
  contracts: Record<string, Record<string, CompiledContract>>;
}

export const testSettings = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'metadata', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  ...extra,
});

export function compile(solc: SolcJs, sources: Record<string, string>, settings = testSettings()): Compiled {
  const input: StandardInput = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([path, content]) => [path, { content }])),
    settings,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Compiled['contracts'];
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  return { input, contracts: output.contracts };
}

/** Creation code with each library placeholder (by 'path:Name') replaced by its address. */
export function link(bytecode: string, libraries: Record<string, Address>): Hex {
  let linked = bytecode;
  for (const [qualifiedName, address] of Object.entries(libraries)) {
    const placeholder = `__$${keccak256(toHex(qualifiedName)).slice(2, 36)}$__`;
    linked = linked.split(placeholder).join(address.slice(2).toLowerCase());
  }
  if (linked.includes('__$')) throw new Error('a library placeholder is left unlinked');
  return `0x${linked}`;
}

/** anvil's first dev account, which it signs for. */
export const deployer: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

interface TraceCreate {
  type: string;
  action: { init?: Hex };
  result?: { address?: Address } | null;
}

/** A chain on anvil that deploys and calls contracts, and answers the engine's ChainView from the node. */
export class NodeChain {
  readonly client: RpcClient;
  private readonly wallet;
  /** The transaction that created each contract (by lowercase address), as this chain saw it. */
  private readonly creators = new Map<string, Hex>();

  private constructor(readonly anvil: AnvilNode) {
    this.client = createRpcClient({ url: anvil.rpcUrl });
    this.wallet = createWalletClient({ account: deployer, transport: http(anvil.rpcUrl) });
  }

  static async start(): Promise<NodeChain> {
    return new NodeChain(await startAnvil({ hardfork: 'cancun' }));
  }

  stop(): Promise<void> {
    return this.anvil.stop();
  }

  /** Sends init code (with its ABI-encoded constructor arguments appended) from the deployer; the new contract's address. */
  async deploy(initCode: Hex): Promise<{ address: Address; transactionHash: Hex }> {
    const transactionHash = await this.wallet.sendTransaction({ chain: null, data: initCode });
    const receipt = await this.mined(transactionHash);
    const address = receipt.contractAddress!;
    this.creators.set(address.toLowerCase(), transactionHash);
    return { address, transactionHash };
  }

  /** Calls a contract; the receipt's logs. */
  async call(to: Address, data: Hex): Promise<{ transactionHash: Hex; logs: { address: Address; data: Hex; topics: [Hex, ...Hex[]] }[] }> {
    const transactionHash = await this.wallet.sendTransaction({ chain: null, to, data });
    const receipt = await this.mined(transactionHash);
    return { transactionHash, logs: receipt.logs };
  }

  /** Records that a transaction created a contract (one a factory made). */
  created(address: Address, transactionHash: Hex): void {
    this.creators.set(address.toLowerCase(), transactionHash);
  }

  view(chainId = 31337): ChainView {
    return {
      chainId,
      runtimeCode: (address) => this.client.request<Hex>('eth_getCode', [address, 'latest']),
      creation: (address) => this.creation(address),
    };
  }

  private async mined(hash: Hex): Promise<{
    contractAddress: Address | null;
    status: Hex;
    logs: { address: Address; data: Hex; topics: [Hex, ...Hex[]] }[];
  }> {
    await waitForMined(this.client, hash);
    const receipt = await this.client.request<{ contractAddress: Address | null; status: Hex; logs: [] }>('eth_getTransactionReceipt', [
      hash,
    ]);
    if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`);
    return receipt;
  }

  private async creation(address: Address): Promise<ContractCreation | null> {
    const hash = this.creators.get(address.toLowerCase());
    if (hash === undefined) return null;
    const tx = await this.client.request<{ blockNumber: Hex; transactionIndex: Hex; from: Address; input: Hex }>(
      'eth_getTransactionByHash',
      [hash],
    );
    const receipt = await this.client.request<{ contractAddress: Address | null }>('eth_getTransactionReceipt', [hash]);
    let creationCode = tx.input;
    if (receipt.contractAddress?.toLowerCase() !== address.toLowerCase()) {
      // anvil keeps no past state here (--prune-history), so debug_traceTransaction cannot replay the
      // transaction; the Parity traces it recorded when mining give the CREATE's init code.
      const traces = await this.client.request<TraceCreate[]>('trace_transaction', [hash]);
      const frame = traces.find((trace) => trace.type === 'create' && trace.result?.address?.toLowerCase() === address.toLowerCase());
      if (!frame?.action.init) throw new Error(`no create of ${address} in the traces of ${hash}`);
      creationCode = frame.action.init;
    }
    return {
      transactionHash: hash,
      blockNumber: Number(tx.blockNumber),
      transactionIndex: Number(tx.transactionIndex),
      deployer: tx.from,
      creationCode,
    };
  }
}
