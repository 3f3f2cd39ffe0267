import { randomUUID } from "node:crypto";

/**
 * RequestIds gives every tool call the id of the chat request (turn) it
 * belongs to, so that all changes of one turn form one undo checkpoint.
 *
 * The key is the call's toolInvocationToken. Within one extension host the
 * same token object means the same request, hence the WeakMap. But VS Code
 * sends the token across processes and rebuilds it for every call, so the
 * object differs from one call to the next even within a turn; what stays is
 * its content, which names the chat session. Calls of one session that
 * follow each other with less than turnGapMs between the end of one and the
 * start of the next are taken to be the same turn: a model works through its
 * tool calls in a turn without pauses as long as a person takes to read and
 * answer. Calls without a token (from scripts, other extensions) each get
 * an id of their own.
 */
export class RequestIds {
  private readonly byToken = new WeakMap<object, string>();
  private readonly bySession = new Map<string, { id: string; lastUsed: number; running: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly turnGapMs = 120_000,
    private readonly newId: () => string = randomUUID,
  ) {}

  /** The request id for a call starting now; pair it with end(). */
  begin(token: unknown): string {
    if (typeof token !== "object" || token === null) {
      return this.newId();
    }
    const key = sessionKey(token);
    const session = key !== undefined ? this.bySession.get(key) : undefined;
    let id = this.byToken.get(token);
    if (id === undefined) {
      const fresh = session && (session.running > 0 || this.now() - session.lastUsed <= this.turnGapMs);
      id = fresh ? session.id : this.newId();
      this.byToken.set(token, id);
    }
    if (key !== undefined) {
      this.prune();
      const s = this.bySession.get(key);
      if (s && s.id === id) {
        s.running++;
      } else {
        this.bySession.set(key, { id, lastUsed: this.now(), running: 1 });
      }
    }
    return id;
  }

  /** Marks the end of a call begun with token: the turn's clock starts from here. */
  end(token: unknown): void {
    if (typeof token !== "object" || token === null) {
      return;
    }
    const key = sessionKey(token);
    const s = key !== undefined ? this.bySession.get(key) : undefined;
    if (s) {
      s.running = Math.max(0, s.running - 1);
      s.lastUsed = this.now();
    }
  }

  /** Forgets sessions idle for longer than a turn gap, so the map stays small. */
  private prune(): void {
    const now = this.now();
    for (const [k, s] of this.bySession) {
      if (s.running === 0 && now - s.lastUsed > this.turnGapMs) {
        this.bySession.delete(k);
      }
    }
  }
}

/** What in a token names its chat session, if anything does. */
function sessionKey(token: object): string | undefined {
  const t = token as { sessionResource?: unknown; sessionId?: unknown };
  if (t.sessionResource !== undefined && t.sessionResource !== null) {
    return "resource:" + JSON.stringify(t.sessionResource);
  }
  if (typeof t.sessionId === "string") {
    return "session:" + t.sessionId;
  }
  return undefined;
}
