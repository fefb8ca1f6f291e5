import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createPublicClient,
  getAddress,
  getContractAddress,
  http,
  parseEventLogs,
  type Hash,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { startAnvil, type AnvilNode } from '../src/demo/anvil.js';
import { DemoCaller, DemoChild, DemoERC1155, DemoERC721 } from '../src/demo/artifacts.js';
import { runScenario, type ScenarioResult } from '../src/demo/scenario.js';

/** A Parity-style trace, which anvil records when mining and serves even with pruned history. */
interface Trace {
  type: 'call' | 'create' | 'suicide';
  action: { from?: string; to?: string; value?: string; creationMethod?: string; address?: string };
  result: { address?: string } | null;
  error?: string;
  traceAddress: number[];
}

let node: AnvilNode;
let client: PublicClient;
let scenario: ScenarioResult;
let receipts: TransactionReceipt[];

before(async () => {
  node = await startAnvil();
  client = createPublicClient({ transport: http(node.rpcUrl) });
  scenario = await runScenario(node.rpcUrl);
  receipts = await Promise.all(scenario.transactions.map(({ hash }) => client.getTransactionReceipt({ hash })));
});

after(async () => {
  await node?.stop();
});

function txHash(label: string): Hash {
  const tx = scenario.transactions.find((candidate) => candidate.label === label);
  assert.ok(tx, `no scenario transaction labelled "${label}"`);
  return tx.hash;
}

/** The fields of traces that the tests below look at, to show in a failure. */
const outline = (calls: Trace[]) =>
  JSON.stringify(
    calls.map(({ type, traceAddress, action, result, error }) => ({
      type,
      traceAddress,
      creationMethod: action.creationMethod,
      address: action.address,
      to: action.to,
      created: result?.address,
      error,
    })),
  );

async function traces(hash: Hash): Promise<Trace[]> {
  const response = await fetch(node.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'trace_transaction', params: [hash] }),
  });
  const body = (await response.json()) as { result?: Trace[]; error?: { message: string } };
  assert.ok(body.result, `trace of ${hash} failed: ${body.error?.message}`);
  return body.result;
}

test('more than 60 uniquely labelled transactions in more than 60 blocks', async () => {
  assert.ok(scenario.transactions.length > 60, `only ${scenario.transactions.length} transactions`);
  const labels = new Set(scenario.transactions.map((tx) => tx.label));
  assert.equal(labels.size, scenario.transactions.length);
  const blocks = new Set(receipts.map((receipt) => receipt.blockNumber));
  assert.ok(blocks.size > 60, `transactions span only ${blocks.size} blocks`);
  const head = await client.getBlockNumber();
  assert.ok(head > 60n, `the head is block ${head}`);
});

test('only the reverted transaction has status 0', () => {
  for (const receipt of receipts) {
    const expected = receipt.transactionHash === scenario.revertedTxHash ? 'reverted' : 'success';
    assert.equal(receipt.status, expected, `status of ${receipt.transactionHash}`);
  }
  assert.equal(receipts.filter((receipt) => receipt.status === 'reverted').length, 1);
});

test('the uncaught revert happens deep in the call tree', async () => {
  const calls = await traces(scenario.revertedTxHash);
  const depth = Math.max(...calls.map((call) => call.traceAddress.length));
  assert.ok(depth >= 3, `the revert is nested only ${depth} deep`);
  assert.deepEqual(
    calls.filter((call) => call.error === undefined),
    [],
    'calls of the reverted transaction without an error',
  );
});

test('the caught revert leaves its transaction successful', async () => {
  const hash = txHash('caller probe with caught inner revert');
  const receipt = await client.getTransactionReceipt({ hash });
  const [caught] = parseEventLogs({ abi: DemoCaller.abi, eventName: 'RevertCaught', logs: receipt.logs });
  assert.ok(caught, 'no RevertCaught event');
  const calls = await traces(hash);
  assert.equal(calls.find((call) => call.traceAddress.length === 0)?.error, undefined);
  assert.ok(
    calls.some((call) => call.error !== undefined),
    `no call with an error among ${outline(calls)}`,
  );
});

test('legacy, access-list and EIP-1559 transactions all occur', async () => {
  const transactions = await Promise.all(scenario.transactions.map(({ hash }) => client.getTransaction({ hash })));
  const types = new Set(transactions.map((tx) => tx.type));
  for (const type of ['legacy', 'eip2930', 'eip1559'] as const)
    assert.ok(types.has(type), `no ${type} transaction among the types ${[...types].join(', ')}`);
});

test('one block holds several transactions', () => {
  const perBlock = new Map<bigint, number>();
  for (const receipt of receipts) perBlock.set(receipt.blockNumber, (perBlock.get(receipt.blockNumber) ?? 0) + 1);
  const most = Math.max(...perBlock.values());
  assert.ok(most >= 5, `at most ${most} transactions in a block`);
});

test('every block the scenario mines is credited to its validator, which sends nothing', async () => {
  const { validator } = scenario.accounts;
  const blocks = [...new Set(receipts.map((receipt) => receipt.blockNumber))];
  const miners = new Set(await Promise.all(blocks.map(async (blockNumber) => getAddress((await client.getBlock({ blockNumber })).miner))));
  assert.deepEqual([...miners], [validator]);
  assert.notEqual(validator, '0x0000000000000000000000000000000000000000');
  assert.equal(await client.getTransactionCount({ address: validator }), 0);
  assert.ok((await client.getBalance({ address: validator })) > 0n, 'the validator earns the tips');
});

test('the busy account has more than 50 transactions', async () => {
  const busy = scenario.busyAccount.toLowerCase();
  const transactions = await Promise.all(scenario.transactions.map(({ hash }) => client.getTransaction({ hash })));
  const involving = transactions.filter((tx) => tx.from.toLowerCase() === busy || tx.to?.toLowerCase() === busy);
  assert.ok(involving.length > 50, `only ${involving.length} transactions involve ${busy}`);
});

test('the ERC-1155 TransferBatch event is logged', () => {
  const logs = receipts.flatMap((receipt) => receipt.logs).filter((log) => log.address === scenario.contracts.erc1155.toLowerCase());
  const batches = parseEventLogs({ abi: DemoERC1155.abi, eventName: 'TransferBatch', logs });
  assert.ok(batches.length >= 2, `expected the mintBatch and safeBatchTransferFrom events, found ${batches.length} TransferBatch events`);
});

test('ether moves through internal calls to EOAs', async () => {
  const calls = await traces(txHash('caller split ether among payees'));
  const payees = new Set(scenario.accounts.payees.map((payee) => payee.toLowerCase()));
  const transfers = calls.filter((call) => call.type === 'call' && payees.has(call.action.to ?? '') && BigInt(call.action.value ?? 0) > 0n);
  assert.equal(transfers.length, 4);
});

/** Where the caller's CREATE2 of a DemoChild with this salt puts it. */
const create2ChildAddress = (salt: Hash) =>
  getContractAddress({ opcode: 'CREATE2', from: scenario.contracts.caller, salt, bytecode: DemoChild.bytecode });

test('the CREATE2 child exists at its predicted address', async () => {
  const predicted = create2ChildAddress(scenario.create2Salts.create2Child);
  assert.equal(scenario.contracts.create2Child, predicted);
  const code = await client.getCode({ address: predicted });
  assert.ok(code && code.length > 2, `no code at the CREATE2 address: ${code}`);
});

test('the child created and self-destructed in one transaction is gone', async () => {
  const predicted = create2ChildAddress(scenario.create2Salts.destroyedChild);
  assert.equal(scenario.contracts.destroyedChild, predicted);
  const address = predicted.toLowerCase();
  const calls = await traces(txHash('caller spawnAndDestroy child (CREATE2 + selfdestruct)'));
  assert.ok(
    calls.some((call) => call.action.creationMethod === 'create2' && call.result?.address === address),
    `no CREATE2 of ${address} among ${outline(calls)}`,
  );
  assert.ok(
    calls.some((call) => call.type === 'suicide' && call.action.address === address),
    `no selfdestruct of ${address} among ${outline(calls)}`,
  );
  assert.equal(await client.getCode({ address: predicted }), undefined);
  assert.equal(await client.getBalance({ address: predicted }), 0n);
});

test('a child destroyed after its creation transaction keeps its code but loses its ether', async () => {
  const address = scenario.contracts.createChild;
  const calls = await traces(txHash('caller destroyChild of CREATE child (selfdestruct)'));
  assert.ok(
    calls.some((call) => call.type === 'suicide' && call.action.address === address.toLowerCase()),
    `no selfdestruct of ${address} among ${outline(calls)}`,
  );
  assert.notEqual(await client.getCode({ address }), undefined);
  assert.equal(await client.getBalance({ address }), 0n);
});

test('NFT metadata is embedded in the token URIs', async () => {
  const tokenUri = await client.readContract({
    address: scenario.contracts.erc721,
    abi: DemoERC721.abi,
    functionName: 'tokenURI',
    args: [1n],
  });
  const prefix = 'data:application/json;base64,';
  assert.equal(tokenUri.slice(0, prefix.length), prefix);
  const metadata = JSON.parse(Buffer.from(tokenUri.slice(prefix.length), 'base64').toString('utf8'));
  assert.equal(metadata.name, 'Sextant Demo NFT #1');
  const svg = 'data:image/svg+xml;base64,';
  assert.equal(String(metadata.image).slice(0, svg.length), svg);

  const itemUri = await client.readContract({
    address: scenario.contracts.erc1155,
    abi: DemoERC1155.abi,
    functionName: 'uri',
    args: [1n],
  });
  const itemJson = itemUri.replace(/^data:application\/json,/, '').replace('{id}', (1).toString(16).padStart(64, '0'));
  assert.match(JSON.parse(itemJson).name, /^Sextant Demo Item 0+1$/);
});

test('the scenario sends the same transactions on a fresh node', async () => {
  const second = await startAnvil();
  try {
    const rerun = await runScenario(second.rpcUrl);
    assert.deepEqual(rerun.transactions, scenario.transactions);
  } finally {
    await second.stop();
  }
});

test('stop() terminates the anvil process', async () => {
  const pid = node.pid;
  assert.doesNotThrow(() => process.kill(pid, 0), 'anvil should be running before stop()');
  await node.stop();
  assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  await node.stop();
});

function assertOneLineError(pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof Error, `not an Error: ${String(err)}`);
    assert.doesNotMatch(err.message, /\n/);
    assert.match(err.message, pattern);
    return true;
  };
}

test('startAnvil rejects a missing ANVIL_BIN with a one-line message', async () => {
  const previous = process.env.ANVIL_BIN;
  process.env.ANVIL_BIN = '/nonexistent';
  try {
    await assert.rejects(startAnvil(), assertOneLineError(/ANVIL_BIN=\/nonexistent/));
  } finally {
    if (previous === undefined) delete process.env.ANVIL_BIN;
    else process.env.ANVIL_BIN = previous;
  }
});

test('startAnvil rejects when anvil exits during startup', async () => {
  await assert.rejects(startAnvil({ extraArgs: ['--no-such-flag'] }), assertOneLineError(/exited with code \d+ before listening/));
});
