import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPublicClient, createWalletClient, decodeFunctionResult, encodeFunctionData, http, parseAbi, type Hex } from 'viem';
import { MULTICALL3_ADDRESS, createContractCaller } from '../../src/chain/contract-calls.js';
import { InvalidNodeResponseError, NodeUnavailableError } from '../../src/chain/errors.js';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { readTokenMetadata, readTotalSupplies } from '../../src/chain/token-metadata.js';
import { type NftId, readTokenUris } from '../../src/chain/token-uri.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { Multicall3 } from '../../src/demo/artifacts.js';
import { runScenario, type ScenarioResult } from '../../src/demo/scenario.js';
import type { Address, TokenMetadata } from '../../src/model.js';
import { startReplayNode } from '../support/replay-node.js';

/**
 * Token metadata read through Multicall3 and through JSON-RPC batches of eth_call, on the demo chain
 * plus contracts whose code answers every call the same odd way.
 */
let anvil: AnvilNode;
let client: RpcClient;
let scenario: ScenarioResult;

// Every call answers the one word "EOS" padded as a bytes32: a bytes32 name and symbol, decimals out of range.
const bytes32Word = `0x${Buffer.from('EOS').toString('hex').padEnd(64, '0')}` as const;
const odd = {
  bytes32: { address: '0x00000000000000000000000000000000000b0032' as Address, code: `0x7f${bytes32Word.slice(2)}60005260206000f3` },
  // Five bytes: neither a word nor an ABI string.
  garbage: { address: '0x00000000000000000000000000000000000ba4ba' as Address, code: '0x6401020304056000526005601bf3' },
  reverting: { address: '0x0000000000000000000000000000000000000fe0' as Address, code: '0x60006000fd' },
};

before(async () => {
  anvil = await startAnvil();
  scenario = await runScenario(anvil.rpcUrl);
  client = createRpcClient({ url: anvil.rpcUrl });
  for (const { address, code } of Object.values(odd)) await client.request('anvil_setCode', [address, code]);
});
after(async () => {
  await anvil?.stop();
});

const nulls: TokenMetadata = { name: null, symbol: null, decimals: null, totalSupply: null };

/** The client, recording which methods it is asked (batches as "batch of N method"). */
function recording(): { client: RpcClient; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    client: {
      url: client.url,
      request: (method, params) => {
        asked.push(method);
        return client.request(method, params);
      },
      batch: (calls) => {
        asked.push(`batch of ${calls.length} ${calls[0]?.method}`);
        return client.batch(calls);
      },
      batchSettled: (calls) => {
        asked.push(`batch of ${calls.length} ${calls[0]?.method}`);
        return client.batchSettled(calls);
      },
    },
  };
}

function tokens(): Address[] {
  const { erc20, erc721, erc1155, caller } = scenario.contracts;
  return [erc20, erc721, erc1155, caller, scenario.accounts.alice, odd.bytes32.address, odd.garbage.address, odd.reverting.address].map(
    (a) => a.toLowerCase() as Address,
  );
}

async function expected(): Promise<TokenMetadata[]> {
  const supply = BigInt(await client.request<Hex>('eth_call', [{ to: scenario.contracts.erc20, data: '0x18160ddd' }, 'latest']));
  return [
    { name: 'Sextant Demo Token', symbol: 'SDT', decimals: 18n, totalSupply: supply },
    { name: 'Sextant Demo NFT', symbol: 'SNFT', decimals: null, totalSupply: null },
    nulls, // ERC-1155: every call reverts
    nulls, // a contract without these functions
    nulls, // an account without code
    { name: 'EOS', symbol: 'EOS', decimals: null, totalSupply: BigInt(bytes32Word) },
    nulls,
    nulls,
  ];
}

async function deployMulticall3(): Promise<void> {
  const wallet = createWalletClient({ transport: http(anvil.rpcUrl) });
  const hash = await wallet.deployContract({
    abi: Multicall3.abi,
    bytecode: Multicall3.bytecode,
    account: scenario.accounts.deployer,
    chain: null,
  });
  const receipt = await createPublicClient({ transport: http(anvil.rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 5 });
  const code = await client.request<Hex>('eth_getCode', [receipt.contractAddress, 'latest']);
  await client.request('anvil_setCode', [MULTICALL3_ADDRESS, code]);
}

test('without Multicall3, then with it, the same fields and nulls; each token affects only its own fields', async () => {
  const list = tokens();
  const want = await expected();
  assert.equal(await client.request('eth_call', [{ to: odd.garbage.address, data: '0x06fdde03' }, 'latest']), '0x0102030405');
  assert.equal(await client.request('eth_call', [{ to: odd.bytes32.address, data: '0x06fdde03' }, 'latest']), bytes32Word);

  const batched = recording();
  const viaBatch = await readTokenMetadata(createContractCaller(batched.client), list);
  assert.deepEqual([...viaBatch.values()], want);
  assert.deepEqual(batched.asked, ['eth_getCode', `batch of ${list.length * 4} eth_call`]);

  await deployMulticall3();
  const aggregated = recording();
  const caller = createContractCaller(aggregated.client);
  const viaMulticall = await readTokenMetadata(caller, list);
  assert.deepEqual([...viaMulticall.entries()], [...viaBatch.entries()]);
  assert.deepEqual(
    await readTotalSupplies(caller, list),
    want.map((m) => m.totalSupply),
  );
  // Multicall3 is looked for once; each read is one eth_call.
  assert.deepEqual(aggregated.asked, ['eth_getCode', 'eth_call', 'eth_call']);
});

test('a Multicall3 address whose code answers garbage falls back to a batch with the same results', async () => {
  await client.request('anvil_setCode', [MULTICALL3_ADDRESS, odd.garbage.code]);
  const list = tokens();
  const asked = recording();
  const read = await readTokenMetadata(createContractCaller(asked.client), list);
  assert.deepEqual([...read.values()], await expected());
  assert.deepEqual(asked.asked, ['eth_getCode', 'eth_call', `batch of ${list.length * 4} eth_call`]);
});

const uriAbi = parseAbi(['function tokenURI(uint256) view returns (string)', 'function uri(uint256) view returns (string)']);

/** The URI the contract gives, decoded with viem, `{id}` substituted for ERC-1155. */
async function nodeUri({ token, type, id }: NftId): Promise<string> {
  const functionName = type === 'ERC-1155' ? 'uri' : 'tokenURI';
  const data = await client.request<Hex>('eth_call', [
    { to: token, data: encodeFunctionData({ abi: uriAbi, functionName, args: [id] }) },
    'latest',
  ]);
  return decodeFunctionResult({ abi: uriAbi, functionName, data }).replaceAll('{id}', id.toString(16).padStart(64, '0'));
}

test('token URIs are read in one batch, then in one eth_call to Multicall3, to the same URIs; reverts and non-text answers are null', async () => {
  const { erc721, erc1155, caller } = scenario.contracts;
  const nft = (token: Address, type: NftId['type'], id: bigint): NftId => ({ token: token.toLowerCase() as Address, type, id });
  const served = [nft(erc721, 'ERC-721', 1n), nft(erc721, 'ERC-721', 2n), nft(erc1155, 'ERC-1155', 1n), nft(erc1155, 'ERC-1155', 0x2an)];
  const withoutUri = [
    nft(erc721, 'ERC-721', 3n), // burnt: tokenURI reverts
    nft(erc721, 'ERC-721', 99n), // never minted
    nft(caller, 'ERC-721', 1n), // no tokenURI function
    nft(scenario.accounts.alice, 'ERC-721', 1n), // no code: empty answer
    nft(odd.bytes32.address, 'ERC-721', 1n), // one word, not a string
    nft(odd.garbage.address, 'ERC-1155', 1n),
    nft(odd.reverting.address, 'ERC-1155', 1n),
  ];
  const ids = [...served, ...withoutUri];
  const want = [...(await Promise.all(served.map(nodeUri))), ...withoutUri.map(() => null)];
  assert.match(want[3]!, /Sextant Demo Item 0{62}2a/);

  await client.request('anvil_setCode', [MULTICALL3_ADDRESS, '0x']);
  const batched = recording();
  assert.deepEqual(await readTokenUris(createContractCaller(batched.client), ids), want);
  assert.deepEqual(batched.asked, ['eth_getCode', `batch of ${ids.length} eth_call`]);

  await deployMulticall3();
  const aggregated = recording();
  assert.deepEqual(await readTokenUris(createContractCaller(aggregated.client), ids), want);
  assert.deepEqual(aggregated.asked, ['eth_getCode', 'eth_call']);
});

test('reading token URIs rejects when the node fails or answers what no eth_call returns, instead of taking it for no URI', async () => {
  const id: NftId = { token: '0x00000000000000000000000000000000000000aa', type: 'ERC-721', id: 1n };
  const garbling = await startReplayNode([
    { method: 'eth_getCode', params: [MULTICALL3_ADDRESS, 'latest'], result: '0x' },
    { method: 'eth_call', params: [{ to: id.token, data: `0xc87b56dd${'1'.padStart(64, '0')}` }, 'latest'], result: 'not hex' },
  ]);
  // Both requests (eth_getCode, then the batch) fail.
  const failing = await startReplayNode([], { faults: ['http-503', 'http-503'] });
  try {
    const callerOf = (node: { url: string }) => createContractCaller(createRpcClient({ url: node.url, retryCount: 0 }));
    await assert.rejects(readTokenUris(callerOf(garbling), [id]), InvalidNodeResponseError);
    assert.deepEqual(garbling.httpRequests, [
      { calls: 1, batch: false },
      { calls: 1, batch: true },
    ]);
    await assert.rejects(readTokenUris(callerOf(failing), [id]), NodeUnavailableError);
    assert.equal(failing.httpRequests.length, 0, 'no request was answered');
  } finally {
    await garbling.stop();
    await failing.stop();
  }
});

test("a node's own failure in a batch (anvil's block out of range while it mines) rejects the read; what the EVM did (a revert, an invalid opcode) is the contract's answer", async () => {
  const ids: NftId[] = [1n, 2n].map((id) => ({ token: '0x00000000000000000000000000000000000000aa', type: 'ERC-721', id }));
  const uriCall = (id: NftId) => ({ to: id.token, data: `0xc87b56dd${id.id.toString(16).padStart(64, '0')}` });
  const revertedWithReason = { code: -32000, message: 'execution reverted: token id out of range' };
  const invalidOpcode = { code: -32603, message: 'EVM error InvalidFEOpcode' };
  const outOfRange = { code: -32602, message: 'BlockOutOfRangeError: block height is 135 but requested was 134' };
  const headerNotFound = { code: -32000, message: 'header not found' };
  const node = (second: { code: number; message: string }) =>
    startReplayNode([
      { method: 'eth_getCode', params: [MULTICALL3_ADDRESS, 'latest'], result: '0x' },
      { method: 'eth_call', params: [uriCall(ids[0]!), 'latest'], error: invalidOpcode },
      { method: 'eth_call', params: [uriCall(ids[1]!), 'latest'], error: second },
    ]);
  const nodes = await Promise.all([node(revertedWithReason), node(outOfRange), node(headerNotFound)]);
  try {
    const [reverting, mining, pruned] = nodes.map((n) => createContractCaller(createRpcClient({ url: n.url, retryCount: 0 })));
    assert.deepEqual(
      await readTokenUris(reverting!, ids),
      [null, null],
      "an invalid opcode, and a revert whose reason reads like a node failure, are the contract's answers",
    );
    await assert.rejects(readTokenUris(mining!, ids), /BlockOutOfRangeError/);
    await assert.rejects(readTokenUris(pruned!, ids), /header not found/);
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
});
