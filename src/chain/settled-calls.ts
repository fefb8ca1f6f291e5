import type { Hex } from '../model.js';
import { isHexData } from '../model.js';
import { InvalidNodeResponseError, RpcError } from './errors.js';
import type { RpcCall, RpcClient } from './rpc.js';

/**
 * The answers of `calls` (state reads: eth_call, eth_getStorageAt), lowercased, in one JSON-RPC
 * batch; null where the node refused one for good (a call that reverts, a method it lacks). A
 * refusal for now rejects them all, to be asked again.
 */
export async function settledCalls(client: RpcClient, calls: RpcCall[]): Promise<(Hex | null)[]> {
  if (calls.length === 0) return [];
  const answers = await client.batchSettled<unknown>(calls);
  return answers.map((answer, i) => {
    if (answer instanceof RpcError) {
      if (answer.retryable) throw answer;
      return null;
    }
    if (!isHexData(answer))
      throw new InvalidNodeResponseError(`${calls[i]!.method} at ${JSON.stringify(calls[i]!.params[0])}`, '', 'is not hex data');
    return answer.toLowerCase() as Hex;
  });
}
