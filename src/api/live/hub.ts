import type { WebSocket } from 'ws';
import { broadcastFrame, parseFrame, replyFrame, type PhoenixMessage } from './phoenix.js';
import { joinRefusal } from './topics.js';

export interface HubLimits {
  /** A client with more than this waiting to be sent is too slow to keep up, and is dropped. */
  maxBufferedBytes: number;
  maxTopicsPerClient: number;
  /** A client silent this long (Phoenix clients send a heartbeat every 30 s) is gone, and is dropped. */
  idleTimeoutMs: number;
}

export const defaultHubLimits: HubLimits = { maxBufferedBytes: 1024 * 1024, maxTopicsPerClient: 100, idleTimeoutMs: 60_000 };

interface Client {
  socket: WebSocket;
  topics: Set<string>;
  lastSeen: number;
}

/**
 * The websocket clients and the topics they joined: answers their Phoenix messages, and pushes a
 * broadcast to every client on its topic, encoded once for all of them.
 */
export class LiveHub {
  private readonly clients = new Set<Client>();
  private readonly byTopic = new Map<string, Set<Client>>();
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly limits: HubLimits = defaultHubLimits) {
    this.sweep = setInterval(() => this.dropIdle(), Math.max(1000, limits.idleTimeoutMs / 4)).unref();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  accept(socket: WebSocket): void {
    const client: Client = { socket, topics: new Set(), lastSeen: Date.now() };
    this.clients.add(client);
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.receive(client, data.toString());
    });
    socket.on('close', () => this.forget(client));
    socket.on('error', () => socket.terminate());
  }

  /** Whether anyone listens on the topic. */
  watched(topic: string): boolean {
    return this.byTopic.has(topic);
  }

  /** The joined topics that start with the prefix, as the clients spelled them. */
  watchedWithPrefix(prefix: string): string[] {
    return [...this.byTopic.keys()].filter((topic) => topic.startsWith(prefix));
  }

  broadcast(topic: string, event: string, payload: unknown): void {
    const subscribers = this.byTopic.get(topic);
    if (subscribers === undefined) return;
    const frame = broadcastFrame(topic, event, payload);
    for (const client of subscribers) this.send(client, frame);
  }

  close(): void {
    clearInterval(this.sweep);
    for (const client of this.clients) client.socket.terminate();
  }

  private receive(client: Client, text: string): void {
    client.lastSeen = Date.now();
    const message = parseFrame(text);
    if (message === null) return;
    if (message.topic === 'phoenix' && message.event === 'heartbeat') return this.send(client, replyFrame(message, 'ok', {}));
    switch (message.event) {
      case 'phx_join':
        return this.join(client, message);
      case 'phx_leave':
        this.leave(client, message.topic);
        return this.send(client, replyFrame(message, 'ok', {}));
      default:
        return this.send(
          client,
          replyFrame(message, 'error', { reason: client.topics.has(message.topic) ? 'unknown event' : 'unmatched topic' }),
        );
    }
  }

  private join(client: Client, message: PhoenixMessage): void {
    const full = !client.topics.has(message.topic) && client.topics.size >= this.limits.maxTopicsPerClient;
    const refusal = joinRefusal(message.topic) ?? (full ? 'too many topics' : null);
    if (refusal !== null) return this.send(client, replyFrame(message, 'error', { reason: refusal }));
    client.topics.add(message.topic);
    const subscribers = this.byTopic.get(message.topic) ?? new Set();
    subscribers.add(client);
    this.byTopic.set(message.topic, subscribers);
    this.send(client, replyFrame(message, 'ok', {}));
  }

  private leave(client: Client, topic: string): void {
    client.topics.delete(topic);
    const subscribers = this.byTopic.get(topic);
    subscribers?.delete(client);
    if (subscribers?.size === 0) this.byTopic.delete(topic);
  }

  private send(client: Client, frame: string): void {
    if (client.socket.bufferedAmount > this.limits.maxBufferedBytes) return this.drop(client);
    client.socket.send(frame);
  }

  private drop(client: Client): void {
    client.socket.terminate();
    this.forget(client);
  }

  private forget(client: Client): void {
    if (!this.clients.delete(client)) return;
    for (const topic of [...client.topics]) this.leave(client, topic);
  }

  private dropIdle(): void {
    const silentSince = Date.now() - this.limits.idleTimeoutMs;
    for (const client of this.clients) if (client.lastSeen < silentSince) this.drop(client);
  }
}
