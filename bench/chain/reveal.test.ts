import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { waitFor } from '../../test/support/wait.js';
import { createChainGenerator } from './generate.js';
import { createNodeServer } from './node-server.js';
import type { RevealStart } from './reveal.js';
import { chainShape } from './scale.js';

const LAST = 29;
const FIRST_SHOWN = 10;

describe('the generated node revealing its chain as a live one', () => {
  const server = createNodeServer(createChainGenerator(chainShape('small', LAST + 1)), FIRST_SHOWN);
  let url = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const call = async (method: string, params: unknown[]): Promise<unknown> => {
    const response = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return ((await response.json()) as { result: unknown }).result;
  };

  it('shows nothing past its first block until a rate is set, then announces every block in order up to the last', async () => {
    assert.equal(await call('eth_blockNumber', []), `0x${FIRST_SHOWN.toString(16)}`);
    assert.equal(await call('eth_getBlockByNumber', [`0x${(FIRST_SHOWN + 1).toString(16)}`, false]), null);
    const socket = new WebSocket(url.replace('http', 'ws'));
    const announced: number[] = [];
    const subscribed = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { result?: unknown; params?: { result: { number: string } } };
        if (message.params === undefined) return resolve();
        announced.push(Number(message.params.result.number));
      }),
    );
    socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
    await subscribed;
    try {
      const start = (await (await fetch(`${url}/reveal?rate=200`, { method: 'POST' })).json()) as RevealStart;
      assert.equal(start.base, FIRST_SHOWN);
      await waitFor(async () => announced.length === LAST - FIRST_SHOWN, 'every block after the first shown is announced');
      assert.deepEqual(
        announced,
        Array.from({ length: LAST - FIRST_SHOWN }, (_, i) => FIRST_SHOWN + 1 + i),
      );
      assert.equal(await call('eth_blockNumber', []), `0x${LAST.toString(16)}`);
      const stopped = (await (await fetch(`${url}/reveal?rate=0`, { method: 'POST' })).json()) as RevealStart;
      assert.equal(stopped.base, LAST, 'never past the last block');
    } finally {
      socket.close();
    }
  });
});
