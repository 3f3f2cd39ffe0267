// A Daemon stand-in for unit tests: records what the extension sends and
// answers requests with whatever the test scripts.

import type { NotificationType, RequestType } from "vscode-jsonrpc";

import type { Daemon } from "../src/daemon";
import { EventEmitter } from "./fake/vscode";

export interface Sent {
  method: string;
  params: any;
  token?: unknown;
}

export class StubDaemon {
  state = "ready";
  requests: Sent[] = [];
  notifications: Sent[] = [];
  requestHandlers = new Map<string, (params: any, token: any) => unknown>();
  notificationHandlers = new Map<string, (params: any) => void>();
  readonly started = new EventEmitter<unknown>();
  readonly stopped = new EventEmitter<void>();
  readonly onDidStart = this.started.event;
  readonly onDidStop = this.stopped.event;
  /** Answers a request; throwing makes the request fail. */
  answer: (method: string, params: any) => unknown = () => ({});

  /** The sessions requests/turn was asked about, in order; it is not among requests. */
  turns: string[] = [];

  async request<P, R>(type: RequestType<P, R, void>, params: P, token?: unknown): Promise<R> {
    if (type.method === "requests/turn") {
      // The daemon keeps the turn rule; here every session is one turn.
      const session = (params as { session: string }).session;
      this.turns.push(session);
      return { requestId: `turn of ${session}` } as R;
    }
    this.requests.push({ method: type.method, params, token });
    return (await this.answer(type.method, params)) as R;
  }

  notify<P>(type: NotificationType<P>, params: P): void {
    this.notifications.push({ method: type.method, params });
  }

  onRequest<P, R>(type: RequestType<P, R, void>, h: (params: P, token: any) => unknown): void {
    this.requestHandlers.set(type.method, h);
  }

  onNotification<P>(type: NotificationType<P>, h: (params: P) => void): void {
    this.notificationHandlers.set(type.method, h);
  }

  asDaemon(): Daemon {
    return this as unknown as Daemon;
  }
}

/** A JSON-RPC cancellation token the test can cancel, as the daemon would with $/cancelRequest. */
export function rpcToken() {
  const listeners: (() => void)[] = [];
  const token = {
    isCancellationRequested: false,
    onCancellationRequested(l: () => void) {
      listeners.push(l);
      return { dispose: () => undefined };
    },
  };
  return {
    token,
    cancel() {
      token.isCancellationRequested = true;
      listeners.forEach((l) => l());
    },
  };
}

/** Lets queued promise callbacks run. */
export function settle(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** Lets the event loop turn until cond holds; fails after many turns, never on a clock. */
export async function until(cond: () => boolean, what = "condition"): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (cond()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error(`${what} never happened`);
}

export function logChannel(): any {
  const lines: string[] = [];
  const line = (m: string) => lines.push(m);
  const nothing = () => undefined;
  return { lines, trace: line, debug: line, info: line, warn: line, error: line, show: nothing, dispose: nothing };
}

/** A tree item's label as text (VS Code takes a string or a TreeItemLabel). */
export function labelOf(t: { label?: string | { label: string } }): string {
  return typeof t.label === "string" ? t.label : (t.label?.label ?? "");
}
