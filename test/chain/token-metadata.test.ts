import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createContractCaller } from '../../src/chain/contract-calls.js';
import { InvalidNodeResponseError, NodeUnavailableError } from '../../src/chain/errors.js';
import { createRpcClient } from '../../src/chain/rpc.js';
import { readTokenMetadata } from '../../src/chain/token-metadata.js';
import type { Address, Hex } from '../../src/model.js';
import { type Recording, startReplayNode } from '../support/replay-node.js';

const fixtures = new URL('../fixtures/ethereum-etl/', import.meta.url);

/** The eth_call answers recorded for a case, as a node answers them (file names encode the call). */
function recordedCalls(folder: string): Recording[] {
  return readdirSync(new URL(folder, fixtures)).map((file) => {
    const [, data, to] = /eth_call_data_(0x[0-9a-f]{8})_to_(0x[0-9a-f]{40})_latest/.exec(file)!;
    const { result } = JSON.parse(readFileSync(new URL(`${folder}/${file}`, fixtures), 'utf8')) as { result: Hex };
    return { method: 'eth_call', params: [{ to, data }, 'latest'], result };
  });
}

const cases = ['token_with_alternative_return_type', 'token_with_invalid_data', 'blocks_2112234_2112234'];

test('mainnet recordings: a bytes32 symbol, a string padded with NULs, empty strings', async () => {
  const node = await startReplayNode(cases.flatMap(recordedCalls));
  try {
    const caller = createContractCaller(createRpcClient({ url: node.url, retryCount: 0 }));
    const eos: Address = '0x86fa049857e0209aa7d9e616f7eb3b3b78ecfdb0';
    const eth: Address = '0xf763be8b3263c268e9789abfb3934564a7b80054';
    const empty: Address = '0xdbdacfc9eb9d42559ac1efbdb40460c728139e6a';
    const read = await readTokenMetadata(caller, [eos, eth, empty]);
    assert.deepEqual(read.get(eos), {
      name: null, // a bytes32 of zeros
      symbol: 'EOS',
      decimals: 18n,
      totalSupply: 10n ** 27n,
    });
    assert.deepEqual(read.get(eth), {
      name: 'ETH',
      symbol: 'ETH',
      decimals: 18n,
      totalSupply: 0x5add4e0373b9e400n,
    });
    assert.deepEqual(read.get(empty), {
      name: null,
      symbol: null,
      decimals: 0n,
      totalSupply: 0n,
    });
    // This node has no eth_getCode, so no Multicall3: the twelve calls go in one JSON-RPC batch.
    assert.deepEqual(node.httpRequests, [
      { calls: 1, batch: false },
      { calls: 12, batch: true },
    ]);
  } finally {
    await node.stop();
  }
});

test('an address without code gives nulls; a node that answers null or not at all fails the read, to be asked again', async () => {
  const token: Address = '0x00000000000000000000000000000000000000aa';
  // name, symbol, decimals, totalSupply: a node answers empty data for calls to an address without code.
  const noCode = await startReplayNode(
    ['0x06fdde03', '0x95d89b41', '0x313ce567', '0x18160ddd'].map((data) => ({
      method: 'eth_call',
      params: [{ to: token, data }, 'latest'],
      result: '0x',
    })),
  );
  // Recordings of other contracts only: this node answers null for the token's calls, which no node should.
  const answersNull = await startReplayNode(recordedCalls(cases[0]!));
  const silent = await startReplayNode([], { faults: ['no-answer', 'no-answer', 'no-answer', 'no-answer'] });
  try {
    const read = async (url: string, timeoutMs?: number) =>
      (await readTokenMetadata(createContractCaller(createRpcClient({ url, timeoutMs, retryCount: 0 })), [token])).get(token);
    assert.deepEqual(await read(noCode.url), { name: null, symbol: null, decimals: null, totalSupply: null });
    await assert.rejects(read(answersNull.url), InvalidNodeResponseError);
    const started = Date.now();
    await assert.rejects(read(silent.url, 300), NodeUnavailableError);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 5_000, `a silent node given up on after ${elapsed} ms, within 5,000`);
  } finally {
    await Promise.all([noCode.stop(), answersNull.stop(), silent.stop()]);
  }
});
