import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
  parseGwei,
  stringToHex,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type TestClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { DemoCaller, DemoERC1155, DemoERC20, DemoERC721 } from './artifacts.js';

export interface ScenarioTransaction {
  label: string;
  hash: Hash;
}

export interface ScenarioAccounts {
  deployer: Address;
  alice: Address;
  bob: Address;
  carol: Address;
  dave: Address;
  /** Accounts that only receive ether, some of it through internal transfers. */
  payees: Address[];
  /** The miner of every block from the scenario's first on (anvil credits the zero address unless told otherwise); it sends nothing. */
  validator: Address;
}

export interface ScenarioContracts {
  erc20: Address;
  erc721: Address;
  erc1155: Address;
  caller: Address;
  createChild: Address;
  create2Child: Address;
  /** Created with CREATE2 and self-destructed in the same transaction, so it has no code. */
  destroyedChild: Address;
}

export interface ScenarioResult {
  chainId: number;
  accounts: ScenarioAccounts;
  /** The EOA with more than 50 transactions to or from it. */
  busyAccount: Address;
  contracts: ScenarioContracts;
  create2Salts: { create2Child: Hex; destroyedChild: Hex };
  revertedTxHash: Hash;
  /** Every transaction sent, in order, with a unique label. */
  transactions: ScenarioTransaction[];
}

const LEGACY = { type: 'legacy', gasPrice: parseGwei('2') } as const;
const EIP1559 = { type: 'eip1559', maxFeePerGas: parseGwei('3'), maxPriorityFeePerGas: parseGwei('1') } as const;
const ETHER_ROUNDS = 30;
const CREATE2_SALT = keccak256(stringToHex('sextant demo create2 child'));
const DESTROYED_SALT = keccak256(stringToHex('sextant demo destroyed child'));
const VALIDATOR = getAddress(keccak256(stringToHex('sextant demo validator')).slice(0, 42));

type Status = TransactionReceipt['status'];

/** Sends transactions in a fixed order, records their labels and checks their outcome. */
class Recorder {
  readonly transactions: ScenarioTransaction[] = [];

  constructor(private readonly client: PublicClient) {}

  async submit(label: string, send: () => Promise<Hash>): Promise<Hash> {
    if (this.transactions.some((tx) => tx.label === label)) throw new Error(`duplicate scenario label: ${label}`);
    const hash = await send();
    this.transactions.push({ label, hash });
    return hash;
  }

  async confirm(hash: Hash, expected: Status = 'success'): Promise<TransactionReceipt> {
    const receipt = await this.client.waitForTransactionReceipt({ hash, pollingInterval: 5, timeout: 10_000 });
    if (receipt.status !== expected) {
      const label = this.transactions.find((tx) => tx.hash === hash)?.label;
      throw new Error(`scenario step "${label}" ended with status ${receipt.status}, expected ${expected}`);
    }
    return receipt;
  }

  async send(label: string, send: () => Promise<Hash>, expected: Status = 'success'): Promise<TransactionReceipt> {
    return this.confirm(await this.submit(label, send), expected);
  }
}

interface Context {
  wallet: WalletClient;
  testClient: TestClient;
  recorder: Recorder;
  accounts: ScenarioAccounts;
}

export async function runScenario(rpcUrl: string): Promise<ScenarioResult> {
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ transport });
  const wallet = createWalletClient({ transport });
  const testClient = createTestClient({ mode: 'anvil', transport });
  const [deployer, alice, bob, carol, dave, ...rest] = await wallet.getAddresses();
  const payees = rest.slice(0, 5);
  if (!deployer || !alice || !bob || !carol || !dave || payees.length < 5) {
    throw new Error(`the node at ${rpcUrl} must expose 10 unlocked accounts (anvil does by default)`);
  }
  const accounts: ScenarioAccounts = { deployer, alice, bob, carol, dave, payees, validator: VALIDATOR };
  const ctx: Context = { wallet, testClient, recorder: new Recorder(publicClient), accounts };
  // A validator with blocks for the address page's "Blocks validated" tab.
  await testClient.setCoinbase({ address: VALIDATOR });

  const contracts = await deployContracts(ctx);
  await exerciseErc20(ctx, contracts.erc20);
  await exerciseErc721(ctx, contracts.erc721);
  await exerciseErc1155(ctx, contracts.erc1155);
  const callerResult = await exerciseCaller(ctx, contracts.caller, contracts.erc20);
  await exerciseTransactionTypes(ctx, contracts.erc20);
  await transferEtherAround(ctx);
  await fillOneBlock(ctx);

  return {
    chainId: await publicClient.getChainId(),
    accounts,
    busyAccount: alice,
    contracts: { ...contracts, ...callerResult.contracts },
    create2Salts: { create2Child: CREATE2_SALT, destroyedChild: DESTROYED_SALT },
    revertedTxHash: callerResult.revertedTxHash,
    transactions: ctx.recorder.transactions,
  };
}

async function deploy(ctx: Context, label: string, artifact: { abi: readonly unknown[]; bytecode: Hex }): Promise<Address> {
  const receipt = await ctx.recorder.send(label, () =>
    ctx.wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, account: ctx.accounts.deployer, chain: null }),
  );
  if (!receipt.contractAddress) throw new Error(`${label} created no contract`);
  return getAddress(receipt.contractAddress);
}

async function deployContracts(ctx: Context) {
  return {
    erc20: await deploy(ctx, 'deploy ERC-20', DemoERC20),
    erc721: await deploy(ctx, 'deploy ERC-721', DemoERC721),
    erc1155: await deploy(ctx, 'deploy ERC-1155', DemoERC1155),
    caller: await deploy(ctx, 'deploy caller', DemoCaller),
  };
}

async function exerciseErc20(ctx: Context, token: Address): Promise<void> {
  const { wallet, recorder } = ctx;
  const { deployer, alice, bob, carol, dave } = ctx.accounts;
  const call = { address: token, abi: DemoERC20.abi, chain: null } as const;
  await recorder.send('ERC-20 mint to alice', () =>
    wallet.writeContract({ ...call, account: deployer, functionName: 'mint', args: [alice, parseEther('1000000')] }),
  );
  await recorder.send('ERC-20 mint to bob', () =>
    wallet.writeContract({ ...call, account: deployer, functionName: 'mint', args: [bob, parseEther('5000')] }),
  );
  await recorder.send('ERC-20 transfer alice to bob', () =>
    wallet.writeContract({ ...call, account: alice, functionName: 'transfer', args: [bob, parseEther('250')] }),
  );
  await recorder.send('ERC-20 transfer bob to carol (legacy)', () =>
    wallet.writeContract({ ...call, ...LEGACY, account: bob, functionName: 'transfer', args: [carol, parseEther('100')] }),
  );
  await recorder.send('ERC-20 alice approves carol', () =>
    wallet.writeContract({ ...call, account: alice, functionName: 'approve', args: [carol, parseEther('1000')] }),
  );
  await recorder.send('ERC-20 transferFrom alice to dave by carol', () =>
    wallet.writeContract({ ...call, account: carol, functionName: 'transferFrom', args: [alice, dave, parseEther('400')] }),
  );
  await recorder.send('ERC-20 burn by bob', () =>
    wallet.writeContract({ ...call, account: bob, functionName: 'burn', args: [parseEther('50')] }),
  );
}

async function exerciseErc721(ctx: Context, nft: Address): Promise<void> {
  const { wallet, recorder } = ctx;
  const { deployer, alice, bob, carol } = ctx.accounts;
  const call = { address: nft, abi: DemoERC721.abi, chain: null } as const;
  // Token ids are assigned 1, 2, 3 in mint order.
  for (const [index, owner] of [alice, alice, bob].entries()) {
    await recorder.send(`ERC-721 mint #${index + 1}`, () =>
      wallet.writeContract({ ...call, account: deployer, functionName: 'mint', args: [owner] }),
    );
  }
  await recorder.send('ERC-721 transferFrom #1 alice to bob', () =>
    wallet.writeContract({ ...call, account: alice, functionName: 'transferFrom', args: [alice, bob, 1n] }),
  );
  await recorder.send('ERC-721 safeTransferFrom #2 alice to carol', () =>
    wallet.writeContract({ ...call, account: alice, functionName: 'safeTransferFrom', args: [alice, carol, 2n] }),
  );
  await recorder.send('ERC-721 burn #3 by bob', () => wallet.writeContract({ ...call, account: bob, functionName: 'burn', args: [3n] }));
}

async function exerciseErc1155(ctx: Context, multiToken: Address): Promise<void> {
  const { wallet, recorder } = ctx;
  const { deployer, alice, bob } = ctx.accounts;
  const call = { address: multiToken, abi: DemoERC1155.abi, chain: null } as const;
  await recorder.send('ERC-1155 mint id 1 to alice', () =>
    wallet.writeContract({ ...call, account: deployer, functionName: 'mint', args: [alice, 1n, 100n, '0x'] }),
  );
  await recorder.send('ERC-1155 mintBatch ids 2-4 to alice', () =>
    wallet.writeContract({
      ...call,
      account: deployer,
      functionName: 'mintBatch',
      args: [alice, [2n, 3n, 4n], [10n, 20n, 30n], '0x'],
    }),
  );
  await recorder.send('ERC-1155 safeTransferFrom id 1 alice to bob', () =>
    wallet.writeContract({ ...call, account: alice, functionName: 'safeTransferFrom', args: [alice, bob, 1n, 25n, '0x'] }),
  );
  await recorder.send('ERC-1155 safeBatchTransferFrom ids 2-3 alice to bob', () =>
    wallet.writeContract({
      ...call,
      account: alice,
      functionName: 'safeBatchTransferFrom',
      args: [alice, bob, [2n, 3n], [5n, 5n], '0x'],
    }),
  );
  await recorder.send('ERC-1155 burn id 1 by bob', () =>
    wallet.writeContract({ ...call, account: bob, functionName: 'burn', args: [bob, 1n, 5n] }),
  );
}

async function exerciseCaller(ctx: Context, caller: Address, token: Address) {
  const { wallet, recorder } = ctx;
  const { deployer, dave, payees } = ctx.accounts;
  const call = { address: caller, abi: DemoCaller.abi, chain: null, account: deployer } as const;
  const createdChild = (receipt: TransactionReceipt): Address => {
    const [event] = parseEventLogs({ abi: DemoCaller.abi, eventName: 'ChildCreated', logs: receipt.logs });
    if (!event) throw new Error(`transaction ${receipt.transactionHash} created no child`);
    return event.args.child;
  };

  await recorder.send('caller mintAndSend ERC-20 to dave', () =>
    wallet.writeContract({ ...call, functionName: 'mintAndSend', args: [token, dave, parseEther('75')] }),
  );
  await recorder.send('caller split ether among payees', () =>
    wallet.writeContract({ ...call, functionName: 'split', args: [payees.slice(0, 4)], value: parseEther('4') }),
  );
  const createChild = createdChild(
    await recorder.send('caller spawn child (CREATE)', () =>
      wallet.writeContract({ ...call, functionName: 'spawn', value: parseEther('2') }),
    ),
  );
  const create2Child = createdChild(
    await recorder.send('caller spawn2 child (CREATE2)', () =>
      wallet.writeContract({ ...call, functionName: 'spawn2', args: [CREATE2_SALT], value: parseEther('1') }),
    ),
  );
  const destroyedChild = createdChild(
    await recorder.send('caller spawnAndDestroy child (CREATE2 + selfdestruct)', () =>
      wallet.writeContract({
        ...call,
        functionName: 'spawnAndDestroy',
        args: [DESTROYED_SALT, payees[4]!],
        value: parseEther('0.5'),
      }),
    ),
  );
  await recorder.send('caller destroyChild of CREATE child (selfdestruct)', () =>
    wallet.writeContract({ ...call, functionName: 'destroyChild', args: [createChild, payees[4]!] }),
  );
  await recorder.send('caller probe with caught inner revert', () => wallet.writeContract({ ...call, functionName: 'probe', args: [3n] }));
  // An explicit gas limit skips estimation, which would refuse the call; the node then mines it with status 0.
  const reverted = await recorder.send(
    'caller descend with uncaught deep revert',
    () => wallet.writeContract({ ...call, functionName: 'descend', args: [3n], gas: 300_000n }),
    'reverted',
  );
  return {
    contracts: { createChild, create2Child, destroyedChild },
    revertedTxHash: reverted.transactionHash,
  };
}

async function exerciseTransactionTypes(ctx: Context, token: Address): Promise<void> {
  const { wallet, recorder } = ctx;
  const { bob, carol, dave } = ctx.accounts;
  await recorder.send('ether carol to dave (legacy)', () =>
    wallet.sendTransaction({ ...LEGACY, account: carol, to: dave, value: parseEther('1.5'), chain: null }),
  );
  await recorder.send('ether dave to carol (EIP-1559)', () =>
    wallet.sendTransaction({ ...EIP1559, account: dave, to: carol, value: parseEther('0.5'), chain: null }),
  );
  await recorder.send('ERC-20 transfer bob to dave (EIP-2930 access list)', () =>
    wallet.writeContract({
      address: token,
      abi: DemoERC20.abi,
      functionName: 'transfer',
      args: [dave, parseEther('10')],
      account: bob,
      chain: null,
      type: 'eip2930',
      gasPrice: parseGwei('2'),
      accessList: [{ address: token, storageKeys: [] }],
    }),
  );
}

/** Ether going back and forth between alice and everyone else, alternating transaction types. */
async function transferEtherAround(ctx: Context): Promise<void> {
  const { wallet, recorder } = ctx;
  const { alice, bob, carol, dave, payees } = ctx.accounts;
  const counterparties = [bob, carol, dave, ...payees];
  for (let round = 0; round < ETHER_ROUNDS; round++) {
    const other = counterparties[round % counterparties.length]!;
    const fees = round % 2 === 0 ? LEGACY : EIP1559;
    const value = parseEther('0.01') * BigInt(round + 1);
    await recorder.send(`ether round ${round + 1} alice to counterparty`, () =>
      wallet.sendTransaction({ ...fees, account: alice, to: other, value, chain: null }),
    );
    await recorder.send(`ether round ${round + 1} counterparty to alice`, () =>
      wallet.sendTransaction({ ...fees, account: other, to: alice, value: value / 2n, chain: null }),
    );
  }
}

/**
 * Several transactions in one block. One sender with identical fees keeps their order fixed by
 * nonce; anvil leaves a sender's later transactions out of the block when their tip is lower.
 */
async function fillOneBlock(ctx: Context): Promise<void> {
  const { wallet, recorder, testClient } = ctx;
  const { deployer, payees } = ctx.accounts;
  await testClient.setAutomine(false);
  const hashes: Hash[] = [];
  for (const [index, payee] of payees.entries()) {
    hashes.push(
      await recorder.submit(`ether deployer to payee ${index + 1} in shared block`, () =>
        wallet.sendTransaction({ ...EIP1559, account: deployer, to: payee, value: parseEther('0.1'), chain: null }),
      ),
    );
  }
  await testClient.mine({ blocks: 1 });
  await testClient.setAutomine(true);
  for (const hash of hashes) await recorder.confirm(hash);
}
