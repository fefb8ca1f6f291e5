import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { waitFor } from './wait.js';

export type Frame = [string | null, string | null, string, string, any];

/** A Phoenix client over a real websocket: every frame it received, in order. */
export class PhoenixClient {
  readonly frames: Frame[] = [];
  private ref = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.frames.push(JSON.parse(data.toString()) as Frame));
  }

  static async connect(base: string): Promise<PhoenixClient> {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/socket/v2/websocket?vsn=2.0.0`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return new PhoenixClient(socket);
  }

  /** Sends a message and waits for its phx_reply: [status, response]. */
  async call(topic: string, event: string, payload: unknown = {}, joinRef: string | null = null): Promise<[string, unknown]> {
    const ref = String(++this.ref);
    this.socket.send(JSON.stringify([joinRef, ref, topic, event, payload]));
    let reply: Frame | undefined;
    await waitFor(() => (reply = this.frames.find((f) => f[1] === ref)) !== undefined, `a reply to ${event} on ${topic}`, {
      timeoutMs: 10_000,
    });
    assert.deepEqual(reply!.slice(0, 4), [joinRef, ref, topic, 'phx_reply']);
    return [reply![4].status, reply![4].response];
  }

  async join(topic: string): Promise<[string, unknown]> {
    return this.call(topic, 'phx_join', {}, String(this.ref + 1));
  }

  /** Pushes (no refs) of an event on a topic, their payloads. */
  pushes(topic: string, event: string): any[] {
    return this.frames.filter((f) => f[0] === null && f[1] === null && f[2] === topic && f[3] === event).map((f) => f[4]);
  }

  close(): void {
    this.socket.close();
  }
}
