import type { FastifyRequest } from 'fastify';
import { type SlotUse, answerSlotsPerProcess, slotsLine } from './answer-slots.js';
import type { ApiApp } from './route.js';

/** The longest a request holds its slot: one that takes longer goes on without it, and the next in line starts. */
const SLOT_LEASE_MS = 50;

const slotGiven = Symbol('slotGiven');
type SlottedRequest = FastifyRequest & { [slotGiven]?: () => void };

/**
 * Routed reads (GET and HEAD, but websocket upgrades) computed a few at a time, two a core: a request
 * holds its rows, their objects and its JSON from its first query until its answer is written, and 64
 * clients at once held 64 of each, which V8's young generation then copied from scavenge to scavenge
 * and promoted (bench/README.md). The rest wait in line, in order. Nobody waits on a slow request for
 * long: a request gives its slot back once its answer is written, its client leaves, or after
 * SLOT_LEASE_MS, whichever comes first; and a request that finds `WAITING_PER_SLOT` requests a slot
 * waiting already goes on at once, as it would without slots. Shared answers sent early are not routed
 * and never wait. Returns the slots' use, for the metrics.
 */
export function registerRequestSlots(app: ApiApp, slots = answerSlotsPerProcess(), leaseMs = SLOT_LEASE_MS): SlotUse {
  const line = slotsLine(slots);
  app.addHook('onRequest', async (request: SlottedRequest) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || request.headers.upgrade !== undefined) return;
    const giveBack = await line.take();
    if (giveBack === null) return;
    // Its client left while it waited: its queries fail at once (client-gone.ts), and no hook gives the slot back.
    if (request.raw.socket.destroyed) return giveBack();
    const lease = setTimeout(giveBack, leaseMs);
    request[slotGiven] = () => {
      clearTimeout(lease);
      giveBack();
    };
  });
  const release = async (request: SlottedRequest) => request[slotGiven]?.();
  app.addHook('onResponse', release);
  app.addHook('onRequestAbort', release);
  return line;
}
