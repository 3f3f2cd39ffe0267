// A child process stand-in whose stdio is a JSON-RPC server the test
// writes, so Daemon's lifecycle can be tested without a real binary.

import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import {
  MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  createMessageConnection,
} from "vscode-jsonrpc/node";

let nextPid = 1000;

export class FakeProcess extends EventEmitter {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly pid = nextPid++;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly server: MessageConnection;
  readonly received: { method: string; params: unknown }[] = [];

  constructor() {
    super();
    this.server = createMessageConnection(new StreamMessageReader(this.stdin), new StreamMessageWriter(this.stdout));
    this.server.onRequest((method, params) => {
      this.received.push({ method, params });
      if (method === "initialize") {
        return { serverInfo: { name: "tether", version: "test" }, tools: [] };
      }
      return null;
    });
    this.server.onNotification((method, params) => {
      this.received.push({ method, params });
      if (method === "exit") {
        this.exit(0);
      }
    });
    this.server.listen();
  }

  /** Ends the process as if it exited by itself. */
  exit(code: number | null, signal: NodeJS.Signals | null = null): void {
    if (this.exitCode !== null || this.signalCode !== null) {
      return;
    }
    this.exitCode = code;
    this.signalCode = signal;
    this.server.dispose();
    this.stdout.end();
    this.stderr.end();
    setImmediate(() => this.emit("exit", code, signal));
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    this.exit(null, signal);
    return true;
  }
}
