import type { Hex } from 'viem';
import type { RpcClient } from '../../src/chain/rpc.js';

/** How long a transaction may sit in anvil's pool before it is mined by hand. */
const AUTOMINE_GRACE_MS = 5_000;
const RECEIPT_TIMEOUT_MS = 30_000;

async function receiptWithin(client: RpcClient, hash: Hex, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await client.request<unknown>('eth_getTransactionReceipt', [hash])) !== null) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Waits until anvil has mined a transaction. anvil mines each transaction as it comes, but on a
 * loaded machine it has been seen to leave one in its pool, ready, with no block following; after a
 * grace period that transaction is mined with `evm_mine`. A receipt still missing after that is a
 * failure that names the pool's status.
 */
export async function waitForMined(client: RpcClient, hash: Hex, what = 'the transaction'): Promise<void> {
  if (await receiptWithin(client, hash, AUTOMINE_GRACE_MS)) return;
  await client.request('evm_mine', []);
  if (await receiptWithin(client, hash, RECEIPT_TIMEOUT_MS)) return;
  const pool = await client.request<unknown>('txpool_status', []).catch((e: unknown) => String(e));
  throw new Error(`${what} (${hash}) was not mined within ${RECEIPT_TIMEOUT_MS} ms; anvil's pool: ${JSON.stringify(pool)}`);
}
