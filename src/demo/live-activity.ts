import { createTestClient, createWalletClient, http, parseEther, parseGwei, type Address, type Hash } from 'viem';
import { DemoCaller, DemoERC1155, DemoERC20, DemoERC721 } from './artifacts.js';
import type { ScenarioResult } from './scenario.js';

export interface LiveActivity {
  /** Stops after the block being made, if any. */
  stop(): Promise<void>;
}

export interface LiveActivityOptions {
  intervalMs: number;
  /** A block that could not be made: the activity goes on with the next one. */
  onError(error: Error): void;
}

/**
 * Keeps the demo chain moving after its scenario: every interval, a few transactions of different
 * kinds (ether in both fee types, ERC-20, ERC-721 and ERC-1155 mints and transfers, a contract call
 * with internal calls and value) sent to the pool, then mined together in one block.
 */
export function startLiveActivity(rpcUrl: string, scenario: ScenarioResult, options: LiveActivityOptions): LiveActivity {
  const transport = http(rpcUrl);
  const wallet = createWalletClient({ transport });
  const testClient = createTestClient({ mode: 'anvil', transport });
  const { deployer, alice, bob, carol, dave, payees } = scenario.accounts;
  const { erc20, erc721, erc1155, caller } = scenario.contracts;
  const receivers = [bob, carol, dave, ...payees];
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<void> = Promise.resolve();

  const makeBlock = async (round: number): Promise<void> => {
    const receiver: Address = receivers[round % receivers.length]!;
    const fees =
      round % 2 === 0
        ? ({ type: 'legacy', gasPrice: parseGwei('2') } as const)
        : ({ type: 'eip1559', maxFeePerGas: parseGwei('3'), maxPriorityFeePerGas: parseGwei('1') } as const);
    const sends: (() => Promise<Hash>)[] = [
      () => wallet.sendTransaction({ ...fees, account: alice, to: receiver, value: parseEther('0.001'), chain: null }),
      () =>
        wallet.writeContract({
          address: erc20,
          abi: DemoERC20.abi,
          functionName: 'transfer',
          args: [receiver, parseEther('1')],
          account: alice,
          chain: null,
        }),
      () =>
        wallet.writeContract({
          address: erc721,
          abi: DemoERC721.abi,
          functionName: 'mint',
          args: [receiver],
          account: deployer,
          chain: null,
        }),
      () =>
        wallet.writeContract({
          address: erc1155,
          abi: DemoERC1155.abi,
          functionName: 'mint',
          args: [receiver, BigInt(1 + (round % 4)), 1n, '0x'],
          account: deployer,
          chain: null,
        }),
      round % 2 === 0
        ? () =>
            wallet.writeContract({
              address: caller,
              abi: DemoCaller.abi,
              functionName: 'probe',
              args: [2n],
              account: deployer,
              chain: null,
            })
        : () =>
            wallet.writeContract({
              address: caller,
              abi: DemoCaller.abi,
              functionName: 'split',
              args: [[receiver, payees[round % payees.length]!]],
              value: parseEther('0.002'),
              account: deployer,
              chain: null,
            }),
    ];
    for (const send of sends) await send();
    await testClient.mine({ blocks: 1 });
  };

  const schedule = (round: number): void => {
    timer = setTimeout(() => {
      current = makeBlock(round)
        .catch((error: Error) => options.onError(error))
        .finally(() => {
          if (!stopped) schedule(round + 1);
        });
    }, options.intervalMs);
  };

  current = testClient.setAutomine(false).then(
    () => schedule(0),
    (error: Error) => options.onError(error),
  );
  return {
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await current;
    },
  };
}
