import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { runScenario } from '../../src/demo/scenario.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type Recording, type ReplayNode, startReplayNode } from '../support/replay-node.js';
import { runSextant } from '../support/sextant-process.js';

// `sextant index` up to LAST_BLOCK against the demo chain, with ETHEREUM_JSONRPC_TRACE_URL naming
// another node: a replay of the chain's traces, which must be the one asked for them.

let anvil: AnvilNode;
let traceNode: ReplayNode;
let db: TestDatabase;
let head: bigint;

before(async () => {
  anvil = await startAnvil();
  await runScenario(anvil.rpcUrl);
  const client = createRpcClient({ url: anvil.rpcUrl });
  head = BigInt(await client.request<string>('eth_blockNumber', []));
  const recordings: Recording[] = [];
  for (let n = 0n; n <= head; n++) {
    const params = [`0x${n.toString(16)}`];
    recordings.push({ method: 'trace_block', params, result: await client.request('trace_block', params) });
  }
  traceNode = await startReplayNode(recordings);
  db = await createTestDatabase();
});

after(async () => {
  await traceNode?.stop();
  await db?.drop();
  await anvil?.stop();
});

test('sextant index traces every block up to LAST_BLOCK through the trace URL, and reads every token and NFT, before it exits', async () => {
  const run = await runSextant(
    ['index'],
    {
      ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl,
      ETHEREUM_JSONRPC_TRACE_URL: traceNode.url,
      DATABASE_URL: db.url,
      LAST_BLOCK: head.toString(),
    },
    60_000,
  );
  assert.equal(run.code, 0, run.stderr);
  const { rows } = await db.pool.query<{ blocks: string; untraced: string; frames: string }>(
    `SELECT (SELECT count(*) FROM blocks WHERE consensus) AS blocks,
            (SELECT count(*) FROM blocks WHERE consensus AND traced_at IS NULL) AS untraced,
            (SELECT count(*) FROM internal_transactions) AS frames`,
  );
  assert.deepEqual(rows[0], { blocks: (head + 1n).toString(), untraced: '0', frames: rows[0]!.frames });
  assert.ok(Number(rows[0]!.frames) > Number(head), `${rows[0]!.frames} frames for blocks 0 to ${head}`);
  const traced = new Set(traceNode.requests.filter((r) => r.method === 'trace_block').map((r) => r.params[0]));
  assert.equal(traced.size, Number(head) + 1);
  const {
    rows: [tokens],
  } = await db.pool.query<{ tokens: string; unread: string; instances: string; unfetched: string }>(
    `SELECT (SELECT count(*) FROM tokens) AS tokens,
            (SELECT count(*) FROM tokens WHERE metadata_fetched_at IS NULL OR supply_mark IS NOT NULL) AS unread,
            (SELECT count(*) FROM token_instances) AS instances,
            (SELECT count(*) FROM token_instances WHERE metadata_fetched_at IS NULL) AS unfetched`,
  );
  assert.ok(Number(tokens!.tokens) > 0 && Number(tokens!.instances) > 0, JSON.stringify(tokens));
  assert.deepEqual([tokens!.unread, tokens!.unfetched], ['0', '0']);
});
