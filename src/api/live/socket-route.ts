import { NotFoundError } from '../errors.js';
import type { ApiApp } from '../route.js';
import type { LiveHub } from './hub.js';

/** Blockscout's websocket: Phoenix Channels, JSON v2 serializer (the frontend asks for vsn=2.0.0). */
export const liveSocketPath = '/socket/v2/websocket';

export function registerLiveSocket(app: ApiApp, hub: LiveHub): void {
  app.route({
    method: 'GET',
    url: liveSocketPath,
    // A plain GET, not an upgrade, asks for nothing served here.
    handler: async () => {
      throw new NotFoundError();
    },
    wsHandler: (socket) => hub.accept(socket),
  });
}
