import WebSocket from 'ws';

export interface NewHeadsSubscription {
  close(): void;
}

export interface NewHeadsHandlers {
  onHead(): void;
  /** The socket dropped or the node refused; it reconnects and subscribes again by itself. */
  onError(error: Error): void;
}

const RECONNECT_DELAY_MS = 2_000;
const SUBSCRIBE_TIMEOUT_MS = 10_000;

/**
 * Subscribes to the node's new heads (`eth_subscribe` newHeads) over its websocket and calls
 * `onHead` for each one. Rejects when the first subscription cannot be made; after that, a dropped
 * socket is reopened and resubscribed every few seconds until close().
 */
export async function subscribeNewHeads(url: string, handlers: NewHeadsHandlers): Promise<NewHeadsSubscription> {
  let socket = await subscribe(url, handlers);
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  const keepOpen = (current: WebSocket) => {
    current.once('close', () => {
      if (closed) return;
      handlers.onError(new Error(`the websocket ${url} closed`));
      const reopen = () => {
        retryTimer = undefined;
        subscribe(url, handlers).then(
          (next) => {
            if (closed) return next.close();
            socket = next;
            keepOpen(next);
          },
          (error: Error) => {
            if (closed) return;
            handlers.onError(error);
            retryTimer = setTimeout(reopen, RECONNECT_DELAY_MS);
          },
        );
      };
      retryTimer = setTimeout(reopen, RECONNECT_DELAY_MS);
    });
  };
  keepOpen(socket);
  return {
    close() {
      closed = true;
      clearTimeout(retryTimer);
      socket.close();
    },
  };
}

/** Opens a socket and subscribes; resolves once the node has confirmed the subscription. */
function subscribe(url: string, handlers: NewHeadsHandlers): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { handshakeTimeout: SUBSCRIBE_TIMEOUT_MS });
    let subscription: string | null = null;
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.terminate();
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`no answer to eth_subscribe from ${url}`)), SUBSCRIBE_TIMEOUT_MS);
    socket.on('error', (error) => {
      if (subscription === null) fail(error);
    });
    socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
    socket.on('message', (data) => {
      const message = parse(data.toString());
      if (subscription === null) {
        if (message?.id !== 1) return;
        if (typeof message.result !== 'string')
          return fail(new Error(`eth_subscribe newHeads refused: ${JSON.stringify(message.error ?? message)}`));
        subscription = message.result;
        clearTimeout(timer);
        resolve(socket);
      } else if (message?.method === 'eth_subscription' && message.params?.subscription === subscription) {
        handlers.onHead();
      }
    });
  });
}

interface SocketMessage {
  id?: unknown;
  result?: unknown;
  error?: unknown;
  method?: unknown;
  params?: { subscription?: unknown };
}

function parse(text: string): SocketMessage | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as SocketMessage) : null;
  } catch {
    return null;
  }
}
