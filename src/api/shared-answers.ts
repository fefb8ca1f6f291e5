import type { FastifyRequest } from 'fastify';
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
  /** For a page with several answers, which one a request asks for (from a header, say); one answer when omitted. */
  variant?(request: FastifyRequest): string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's answer is shared between requests (shared-answers.ts). */
    sharedAnswer?: SharedPage;
  }
}

/** A new head and a reorg: what changes every page that shows the head. */
export const headChanges = ['blocks', 'retracted'] as const satisfies readonly ChainChange['kind'][];

/** One answer kept, or being computed; those that arrive meanwhile wait for the same computation. */
interface Entry {
  page: SharedPage;
  startedAt: number;
  answer: Promise<EncodedAnswer>;
  bytes: number;
}

/** The key of the shared answer a request asks for; null when it asks for something else (a later page, a filter). */
function sharedKey(url: string, page: SharedPage, request: FastifyRequest): string | null {
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && page.defaults?.[name] !== String(value)) return null;
  }
  return `${url} ${page.variant?.(request) ?? ''}`;
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
  answer(key: string, page: SharedPage, compute: () => Promise<EncodedAnswer>): Promise<EncodedAnswer> {
    const now = Date.now();
    const kept = this.entries.get(key);
    if (kept !== undefined && now - kept.startedAt <= this.maxAgeMs) return kept.answer;
    const entry: Entry = { page, startedAt: now, answer: compute(), bytes: 0 };
    this.entries.set(key, entry);
    entry.answer.then(
      (answer) => {
        entry.bytes = encodedSize(answer);
      },
      // A failure is not kept: the next request computes again.
      () => this.entries.get(key) === entry && this.entries.delete(key),
    );
    return entry.answer;
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
    const url = route.url;
    route.handler = function (request, reply) {
      const key = shared.active ? sharedKey(url, page, request) : null;
      if (key === null) return handler.call(this, request, reply);
      const compute = () => outsideRequest(async () => encodeAnswer(reply.serialize(await handler.call(this, request, reply))));
      return shared.answer(key, page, compute).then((answer) => sendEncoded(request, reply, answer));
    };
  });
}
