import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChainChange } from '../store/notifications.js';
import type { Db } from '../store/read/sql.js';
import { outsideRequest } from './client-gone.js';
import { type EncodedAnswer, encodeAnswer, encodedSize, sendEncoded } from './encoded-answer.js';
import { waitForReplay } from './replay.js';
import type { ApiApp } from './route.js';

/**
 * A page whose answer depends on the indexed chain only, not on who asks: computed once, it serves
 * every request until the change feed announces a change that can alter it.
 */
export interface SharedPage {
  /**
   * The kinds of change that can alter the answer. Any kind the change feed carries may be listed,
   * not only new blocks: a page that shows something else a writer announces (a verification, a
   * price) lists that kind, and the answer is computed again when it comes.
   */
  changedBy: readonly ChainChange['kind'][];
  /** Query parameters that, at these values, still ask for the shared answer (as the frontend sends them). */
  defaults?: Readonly<Record<string, string>>;
  /** For a page with several answers, which one a request asks for, from its headers; one answer when omitted. */
  variant?(headers: IncomingHttpHeaders): string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's answer is shared between requests (shared-answers.ts). */
    sharedAnswer?: SharedPage;
  }
}

/** A new head and a reorg: what changes every page that shows the head. */
export const headChanges = ['blocks', 'retracted'] as const satisfies readonly ChainChange['kind'][];

/** The headers of an answer as it was sent. */
type SentHeaders = ReturnType<FastifyReply['getHeaders']>;

/** One answer kept, or being computed; those that arrive meanwhile wait for the same computation. */
interface Entry {
  page: SharedPage;
  startedAt: number;
  answer: Promise<EncodedAnswer>;
  /** The answer once computed. */
  settled: EncodedAnswer | null;
  bytes: number;
  /** How a routed request of each shape (`shapeOf`) was answered: the headers and body of the answers sent early. */
  sentAs: Map<string, SentAnswer>;
}

/** The headers a kept answer was sent with, and the body (identity or compressed) they name. */
interface SentAnswer {
  headers: SentHeaders;
  body: Buffer;
}

/** A shared page's route, as a URL that asks for its shared answer names it. */
interface SharedRoute {
  url: string;
  page: SharedPage;
}

/** A kept answer for a request that has not been routed, and the headers a routed request of its shape was given. */
export interface EarlyAnswer extends SentAnswer {
  route: string;
}

/** The URLs learned to ask for a shared answer, at most: enough for every default spelling of every shared page. */
const MAX_LEARNED_URLS = 256;
/** The request shapes whose headers are kept per answer, at most: browsers of a few kinds, from a few origins. */
const MAX_SHAPES_PER_ANSWER = 16;

/** The key of the shared answer a request asks for; null when it asks for something else (a later page, a filter). */
function sharedKey(route: SharedRoute, query: Record<string, unknown>, headers: IncomingHttpHeaders): string | null {
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && route.page.defaults?.[name] !== String(value)) return null;
  }
  return answerKey(route, headers);
}

const answerKey = (route: SharedRoute, headers: IncomingHttpHeaders): string => `${route.url} ${route.page.variant?.(headers) ?? ''}`;

/**
 * What, besides the URL and the page's variant, the headers of a shared answer depend on: the origin
 * (CORS) and the encodings accepted (compression). A request with a body, without a Host, or with
 * If-None-Match is routed (http-hygiene.ts, caching.ts) and not answered early.
 */
const shapeOf = (headers: IncomingHttpHeaders): string =>
  `${headers.origin ?? ''}\n${headers['accept-encoding'] ?? ''}\n${headers['x-no-compression'] !== undefined}`;

/** The body a kept answer was sent with under these headers; null when it is none of those kept (another hook changed it). */
function sentBody(answer: EncodedAnswer, headers: SentHeaders): Buffer | null {
  const encoding = headers['content-encoding'];
  const body = encoding === undefined ? answer.json : answer.compressed.get(encoding as 'br' | 'gzip');
  return body !== undefined && Number(headers['content-length']) === body.length ? body : null;
}

/**
 * Answers shared between the requests of one block. An answer is computed by the first request that
 * finds none (those arriving meanwhile wait for it), serialized and compressed once, and kept until a
 * change its page lists comes through the change feed or `maxAgeMs` passes (for what no writer
 * announces: token names, the time of day). The feed is PostgreSQL's NOTIFY, so every `serve`
 * process hears every writer; on a replica a change takes effect once the replica has replayed it,
 * so that no answer is computed again from rows older than the change. Answers are shared only while
 * the feed is heard: without it nothing would say an answer is out of date. At most one answer per
 * page (and variant) is kept, each in its identity and compressed bodies.
 */
export class SharedAnswers {
  private readonly entries = new Map<string, Entry>();
  private readonly learnedUrls = new Map<string, SharedRoute>();
  /** The answer each routed request was sent, until its headers are kept. */
  private readonly sending = new WeakMap<IncomingMessage, { key: string; answer: EncodedAnswer }>();
  private listening = false;
  private waiting: ChainChange[] = [];
  private walPosition: string | null = null;
  private applying = false;

  constructor(
    private readonly db: Db,
    private readonly maxAgeMs: number,
  ) {}

  /** Whether requests are answered from shared answers now. */
  get active(): boolean {
    return this.listening && this.maxAgeMs > 0;
  }

  /** The bytes the kept answers hold. */
  get keptBytes(): number {
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.bytes;
    return bytes;
  }

  /** The change feed is heard from now on, or lost (changes meanwhile are missed): either way, nothing kept holds. */
  heard(listening: boolean): void {
    this.listening = listening;
    this.entries.clear();
  }

  /** A change from the feed, with the writer's WAL position: it takes effect once the database read has replayed it. */
  changed(change: ChainChange, walPosition: string | null): void {
    this.waiting.push(change);
    if (walPosition !== null) this.walPosition = walPosition;
    if (!this.applying) void this.apply();
  }

  /** Applies the changes that came, those that came together at once (the last WAL position covers them all). */
  private async apply(): Promise<void> {
    this.applying = true;
    while (this.waiting.length > 0) {
      const changes = this.waiting;
      const walPosition = this.walPosition;
      this.waiting = [];
      this.walPosition = null;
      // A database that does not answer cannot say; the answers go anyway.
      if (walPosition !== null) await waitForReplay(this.db, walPosition).catch(() => undefined);
      const kinds = new Set(changes.map((c) => c.kind));
      for (const [key, entry] of this.entries) {
        if (entry.page.changedBy.some((kind) => kinds.has(kind))) this.entries.delete(key);
      }
    }
    this.applying = false;
  }

  /** The answer kept under `key`, else the one `compute` gives, kept for the requests after. */
  private answer(key: string, page: SharedPage, compute: () => Promise<EncodedAnswer>): Promise<EncodedAnswer> {
    const kept = this.kept(key);
    if (kept !== undefined) return kept.answer;
    const entry: Entry = { page, startedAt: Date.now(), answer: compute(), settled: null, bytes: 0, sentAs: new Map() };
    this.entries.set(key, entry);
    entry.answer.then(
      (answer) => {
        entry.settled = answer;
        entry.bytes = encodedSize(answer);
      },
      // A failure is not kept: the next request computes again.
      () => this.entries.get(key) === entry && this.entries.delete(key),
    );
    return entry.answer;
  }

  /**
   * The answer a routed request for a shared page is given: the kept one, or one computed and kept.
   * The URL is learned, and the headers its answer is sent with are kept (`answered`) for the requests
   * of the same shape after it, answered early. Null when the request asks for no shared answer.
   */
  route(
    route: SharedRoute,
    request: IncomingMessage,
    query: Record<string, unknown>,
    compute: () => Promise<EncodedAnswer>,
  ): Promise<EncodedAnswer> | null {
    const key = this.active ? sharedKey(route, query, request.headers) : null;
    if (key === null) return null;
    if (this.learnedUrls.size < MAX_LEARNED_URLS && request.url !== undefined) this.learnedUrls.set(request.url, route);
    return this.answer(key, route.page, compute).then((answer) => {
      this.sending.set(request, { key, answer });
      return answer;
    });
  }

  /** A routed request's answer is sent: its headers serve the requests of its shape while the answer is kept. */
  answered(request: IncomingMessage, reply: FastifyReply): void {
    const sent = this.sending.get(request);
    this.sending.delete(request);
    if (sent === undefined || reply.statusCode !== 200) return;
    const entry = this.entries.get(sent.key);
    if (entry?.settled !== sent.answer || entry.sentAs.size >= MAX_SHAPES_PER_ANSWER) return;
    const headers = reply.getHeaders();
    const body = sentBody(sent.answer, headers);
    if (body !== null) entry.sentAs.set(shapeOf(request.headers), { headers, body });
  }

  /** The kept answer for an unrouted request, when a routed request of its URL and shape was sent it; else null. */
  early(request: IncomingMessage): EarlyAnswer | null {
    const route = request.url === undefined || !this.active ? undefined : this.learnedUrls.get(request.url);
    if (route === undefined) return null;
    const sent = this.kept(answerKey(route, request.headers))?.sentAs.get(shapeOf(request.headers));
    return sent === undefined ? null : { route: route.url, ...sent };
  }

  /** The entry under `key`, while younger than the age limit. */
  private kept(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && Date.now() - entry.startedAt <= this.maxAgeMs ? entry : undefined;
  }
}

/**
 * Shares the answers of the routes marked `sharedAnswer` (call after registerContractFacts, so that the
 * shared computation includes the facts, and before trackRequests). The computation runs as no
 * request's work: the client that happened to start it may leave without cancelling it for the others.
 */
export function registerSharedAnswers(app: ApiApp, shared: SharedAnswers): void {
  app.addHook('onRoute', (route) => {
    const page = route.config?.sharedAnswer;
    if (page === undefined) return;
    const handler = route.handler;
    const sharedRoute = { url: route.url, page };
    route.handler = function (request, reply) {
      const compute = () => outsideRequest(async () => encodeAnswer(reply.serialize(await handler.call(this, request, reply))));
      const answer = shared.route(sharedRoute, request.raw, (request.query ?? {}) as Record<string, unknown>, compute);
      return answer === null ? handler.call(this, request, reply) : answer.then((encoded) => sendEncoded(request, reply, encoded));
    };
    const onResponse = async (request: FastifyRequest, reply: FastifyReply) => shared.answered(request.raw, reply);
    route.onResponse = [...[route.onResponse ?? []].flat(), onResponse];
  });
}
