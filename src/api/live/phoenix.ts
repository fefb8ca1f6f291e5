/**
 * Phoenix Channels' JSON v2 serializer, as Blockscout's frontend speaks it over
 * /socket/v2/websocket?vsn=2.0.0: every frame is [join_ref, ref, topic, event, payload].
 */
export interface PhoenixMessage {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

const isRef = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** The message a text frame holds; null for anything that is not a v2 frame. */
export function parseFrame(text: string): PhoenixMessage | null {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(frame) || frame.length !== 5) return null;
  const [joinRef, ref, topic, event, payload] = frame as unknown[];
  if (!isRef(joinRef) || !isRef(ref) || typeof topic !== 'string' || typeof event !== 'string') return null;
  return { joinRef, ref, topic, event, payload };
}

export const encodeFrame = (message: PhoenixMessage): string =>
  JSON.stringify([message.joinRef, message.ref, message.topic, message.event, message.payload]);

/** The answer to a client's message: phx_reply on its topic, with its refs. */
export const replyFrame = (to: PhoenixMessage, status: 'ok' | 'error', response: Record<string, unknown>): string =>
  encodeFrame({ joinRef: to.joinRef, ref: to.ref, topic: to.topic, event: 'phx_reply', payload: { status, response } });

/** A push to everyone on a topic: no refs, so it is the same frame for every client. */
export const broadcastFrame = (topic: string, event: string, payload: unknown): string =>
  encodeFrame({ joinRef: null, ref: null, topic, event, payload });
