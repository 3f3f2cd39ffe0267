import { randomUUID } from "node:crypto";

/**
 * RequestIds gives every tool call the id of the chat request (turn) it
 * belongs to, so that all changes of one turn form one undo checkpoint.
 *
 * The key is the call's toolInvocationToken. Within one extension host the
 * same token object means the same request, hence the WeakMap. But VS Code
 * sends the token across processes and rebuilds it for every call, so the
 * object differs from one call to the next even within a turn; what stays is
 * its content, which names the chat session. Which turn of the session a
 * call belongs to is the daemon's to say (requests/turn): it keeps the rule,
 * for the editor and for MCP clients alike. Calls without a token (from
 * scripts, other extensions), or whose token names no session, each get an
 * id of their own.
 */
export class RequestIds {
  private readonly byToken = new WeakMap<object, Promise<string>>();

  constructor(private readonly newId: () => string = randomUUID) {}

  /**
   * The request id of a call made with token. turn asks the daemon for the
   * request of a chat session, by the session's key; when it cannot say
   * (a daemon without requests/turn), the call gets an id of its own.
   */
  of(token: unknown, turn: (session: string) => Promise<string>): Promise<string> {
    if (typeof token !== "object" || token === null) {
      return Promise.resolve(this.newId());
    }
    let id = this.byToken.get(token);
    if (id === undefined) {
      const key = sessionKey(token);
      id = key === undefined ? Promise.resolve(this.newId()) : turn(key).catch(() => this.newId());
      this.byToken.set(token, id);
    }
    return id;
  }
}

/** What in a token names its chat session, if anything does. */
export function sessionKey(token: object): string | undefined {
  const t = token as { sessionResource?: unknown; sessionId?: unknown };
  if (t.sessionResource !== undefined && t.sessionResource !== null) {
    return "resource:" + JSON.stringify(t.sessionResource);
  }
  if (typeof t.sessionId === "string") {
    return "session:" + t.sessionId;
  }
  return undefined;
}
