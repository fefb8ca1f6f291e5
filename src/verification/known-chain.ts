import { SourcifyChain } from '@ethereum-sourcify/lib-sourcify';
import type { Hex } from '../model.js';
import type { ContractCreation } from './types.js';

type Transaction = Awaited<ReturnType<SourcifyChain['getTx']>>;
type CreationAndReceipt = Awaited<ReturnType<SourcifyChain['getContractCreationBytecodeAndReceipt']>>;

/**
 * The chain as lib-sourcify's Verification reads it, answered from what is already known of one
 * contract (no RPC): its runtime code, and its creation when known. Verification reads the runtime code
 * (getBytecode), the creating transaction's block and sender (getTx), and the init code with the
 * transaction's index (getContractCreationBytecodeAndReceipt).
 */
export class KnownContractChain extends SourcifyChain {
  constructor(
    chainId: number,
    private readonly runtimeCode: Hex,
    private readonly creation: ContractCreation | null,
  ) {
    // Not "supported": lib-sourcify then makes no RPC providers, and wants no RPC URL.
    super({ name: `chain ${chainId}`, chainId, supported: false, rpcs: [] });
  }

  override getBytecode = async (): Promise<string> => this.runtimeCode;

  override getTx = async (): Promise<Transaction> => {
    const creation = this.known();
    return { blockNumber: creation.blockNumber, from: creation.deployer, data: creation.creationCode } as unknown as Transaction;
  };

  override getContractCreationBytecodeAndReceipt = async (): Promise<CreationAndReceipt> => {
    const creation = this.known();
    return { creationBytecode: creation.creationCode, txReceipt: { index: creation.transactionIndex } } as unknown as CreationAndReceipt;
  };

  private known(): ContractCreation {
    if (this.creation === null) throw new Error('the creation of the contract is not known');
    return this.creation;
  }
}
