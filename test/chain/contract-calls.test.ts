import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { MULTICALL3_ADDRESS, createContractCaller } from '../../src/chain/contract-calls.js';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { readTokenMetadata, readTotalSupplies, type TokenMetadata } from '../../src/chain/token-metadata.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { Multicall3 } from '../../src/demo/artifacts.js';
import { runScenario, type ScenarioResult } from '../../src/demo/scenario.js';
import type { Address } from '../../src/model.js';

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
      request: (method, params) => (asked.push(method), client.request(method, params)),
      batch: (calls) => (asked.push(`batch of ${calls.length} ${calls[0]?.method}`), client.batch(calls)),
      batchSettled: (calls) => (asked.push(`batch of ${calls.length} ${calls[0]?.method}`), client.batchSettled(calls)),
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
  const hash = await wallet.deployContract({ abi: Multicall3.abi, bytecode: Multicall3.bytecode, account: scenario.accounts.deployer, chain: null });
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
  assert.deepEqual(await readTotalSupplies(caller, list), want.map((m) => m.totalSupply));
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
