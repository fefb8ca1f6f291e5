import { decodeFunctionResult, encodeFunctionData, multicall3Abi, type Hex as ViemHex } from 'viem';
import { type Address, type Hex, isHexData } from '../model.js';
import { InvalidNodeResponseError, RpcError } from './errors.js';
import type { RpcClient } from './rpc.js';

/** Where chains deploy Multicall3, the same address on every chain that has it. */
export const MULTICALL3_ADDRESS: Address = '0xca11bde05977b3631167028862be2a173976ca11';

export interface ContractCall {
  to: Address;
  data: Hex;
}

/**
 * Read-only contract calls at the latest block, many at once: one eth_call to Multicall3's aggregate3
 * where the chain has it, else a JSON-RPC batch of eth_calls. Each answer is the call's return data,
 * or null where that call reverted; one call reverting never fails another. A node that does not
 * answer, answers with a failure of its own (a block it does not have yet, a limit), or answers what
 * no eth_call returns, rejects the whole read: the caller asks again later rather than take the
 * node's failure for the contract's answer.
 */
export interface ContractCaller {
  call(calls: readonly ContractCall[]): Promise<(Hex | null)[]>;
}

/** Return data as the node gave it; anything but hex bytes is the node's failure, not the contract's answer. */
function returnData(answer: unknown): Hex {
  if (isHexData(answer)) return answer as Hex;
  throw new InvalidNodeResponseError('eth_call', '', `is not hex data (${JSON.stringify(answer)?.slice(0, 80)})`);
}

/**
 * A refusal by which the node says that it could not run the call now (see RpcError), not that the
 * contract failed. What the EVM did (a revert, whatever its reason says, an invalid opcode, out of
 * gas) is the contract's answer.
 */
const EVM_FAILURE_MESSAGE = /revert|evm error|invalid opcode|out of gas|stack (underflow|overflow|limit)|invalid jump/i;

const isNodeFailure = (error: RpcError): boolean => error.code !== 3 && !EVM_FAILURE_MESSAGE.test(error.nodeMessage) && error.retryable;

/** The contract's answer to one call of a batch: return data, or null where it reverted. */
function callAnswer(answer: unknown): Hex | null {
  if (!(answer instanceof RpcError)) return returnData(answer);
  if (isNodeFailure(answer)) throw answer;
  return null;
}

/** One JSON-RPC batch; a call the contract reverts answers null, one the node could not run rejects the batch. */
async function callInBatch(client: RpcClient, calls: readonly ContractCall[]): Promise<(Hex | null)[]> {
  const answers = await client.batchSettled<unknown>(
    calls.map(({ to, data }) => ({ method: 'eth_call', params: [{ to, data }, 'latest'] })),
  );
  return answers.map(callAnswer);
}

/**
 * One eth_call to aggregate3, each call allowed to fail on its own. Undefined when the node refuses
 * the aggregate itself or answers what is not aggregate3's result: the batch then asks instead.
 */
async function callThroughMulticall3(client: RpcClient, calls: readonly ContractCall[]): Promise<(Hex | null)[] | undefined> {
  const data = encodeFunctionData({
    abi: multicall3Abi,
    functionName: 'aggregate3',
    args: [calls.map(({ to, data }) => ({ target: to, allowFailure: true, callData: data }))],
  });
  let answer: unknown;
  try {
    answer = await client.request<unknown>('eth_call', [{ to: MULTICALL3_ADDRESS, data }, 'latest']);
  } catch (error) {
    if (error instanceof RpcError && !isNodeFailure(error)) return undefined;
    throw error;
  }
  const aggregate = returnData(answer);
  try {
    const results = decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: aggregate as ViemHex });
    if (results.length !== calls.length) return undefined;
    return results.map((result) => (result.success ? (result.returnData as Hex) : null));
  } catch {
    return undefined;
  }
}

/**
 * A caller for one node. Whether the chain has Multicall3 is asked once (eth_getCode at its address);
 * a node that does not answer that question is asked again next time.
 */
export function createContractCaller(client: RpcClient): ContractCaller {
  let hasMulticall3: boolean | undefined;
  const detectMulticall3 = async (): Promise<boolean> => {
    if (hasMulticall3 === undefined) {
      try {
        const code = await client.request<unknown>('eth_getCode', [MULTICALL3_ADDRESS, 'latest']);
        hasMulticall3 = isHexData(code) && code !== '0x';
      } catch (error) {
        if (!(error instanceof RpcError)) return false;
        hasMulticall3 = false;
      }
    }
    return hasMulticall3;
  };
  return {
    async call(calls) {
      if (calls.length === 0) return [];
      const aggregated = (await detectMulticall3()) ? await callThroughMulticall3(client, calls) : undefined;
      return aggregated ?? callInBatch(client, calls);
    },
  };
}
