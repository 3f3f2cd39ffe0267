import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { RestartPolicy } from "../src/backoff";
import { Daemon, DaemonState } from "../src/daemon";
import { FakeProcess } from "./fakeProcess";
import { Uri, fake } from "./fake/vscode";
import { logChannel, settle, until } from "./stubDaemon";

beforeEach(() => {
  fake.reset();
  fake.config["tether.path"] = "/opt/tether";
  fake.folders = [{ uri: Uri.file("/ws"), name: "ws", index: 0 }];
});

interface Rig {
  daemon: Daemon;
  procs: FakeProcess[];
  spawned: { command: string; args: string[]; cwd: unknown }[];
  delays: number[];
  runScheduled(): void;
  states: DaemonState[];
}

function rig(makeProcess: () => FakeProcess = () => new FakeProcess(), initializeTimeoutMs?: number): Rig {
  const procs: FakeProcess[] = [];
  const spawned: Rig["spawned"] = [];
  const delays: number[] = [];
  const scheduled: (() => void)[] = [];
  const daemon = new Daemon({
    extensionPath: "/ext",
    clientVersion: "1.2.3",
    log: logChannel(),
    exists: () => true,
    policy: new RestartPolicy({
      initialDelayMs: 500,
      factor: 2,
      maxDelayMs: 30_000,
      maxRestarts: 3,
      healthyAfterMs: 60_000,
    }),
    spawn: (command, args, options) => {
      spawned.push({ command, args, cwd: options.cwd });
      const p = makeProcess();
      procs.push(p);
      return p as any;
    },
    schedule: (fn, ms) => {
      delays.push(ms);
      scheduled.push(fn);
      return { dispose: () => scheduled.splice(scheduled.indexOf(fn), 1) };
    },
    stopStepMs: 200,
    initializeTimeoutMs,
  });
  const states: DaemonState[] = [];
  daemon.onDidChangeState((s) => states.push(s));
  return {
    daemon,
    procs,
    spawned,
    delays,
    states,
    runScheduled: () => scheduled.splice(0).forEach((f) => f()),
  };
}

test("start runs `tether serve` and initializes with the editor's capabilities and settings", async () => {
  fake.config["tether.permissionMode"] = "acceptEdits";
  fake.config["tether.undo.keep"] = 7;
  const r = rig();
  const started: unknown[] = [];
  r.daemon.onDidStart((c) => started.push(c));
  await r.daemon.start();
  assert.deepEqual(r.spawned, [{ command: "/opt/tether", args: ["serve"], cwd: "/ws" }]);
  assert.equal(r.daemon.state, "ready");
  assert.deepEqual(r.states, ["starting", "ready"]);
  assert.equal(started.length, 1);
  const init = r.procs[0].received[0];
  assert.equal(init.method, "initialize");
  const params = init.params as any;
  assert.deepEqual(params.capabilities, { diagnostics: true, approval: true, askUser: true, todo: true, models: true });
  assert.deepEqual(params.workspaceFolders, [{ uri: "file:///ws", name: "ws" }]);
  assert.deepEqual(params.settings, {
    permissionMode: "acceptEdits",
    logLevel: "info",
    undoKeep: 7,
    shellTimeout: 120,
    agentMaxTurns: 30,
    memoryMaxBytes: 16384,
    webTimeout: 30,
    diagnosticsSettleMs: 3000,
  });
  assert.deepEqual(params.clientInfo, { name: "tether-vscode", version: "1.2.3" });
  await until(() => r.procs[0].received.length > 1, "initialized");
  assert.equal(r.procs[0].received[1].method, "initialized");
  await r.daemon.dispose();
});

test("a daemon that dies is restarted with growing delays, then the user is told", async () => {
  // Every process dies right after it starts.
  const r = rig(() => {
    const p = new FakeProcess();
    setImmediate(() => p.exit(2));
    return p;
  });
  fake.onMessage = () => undefined;
  await assert.rejects(r.daemon.start(), /exited \(exit code 2\) before it was ready/);
  for (let i = 1; i <= 3; i++) {
    await until(() => r.delays.length === i, `restart ${i} scheduled`);
    r.runScheduled();
  }
  await until(() => r.daemon.state === "failed", "giving up");
  assert.deepEqual(r.delays, [500, 1000, 2000], "exponential backoff");
  assert.equal(r.spawned.length, 4, "the first start and three restarts");
  assert.equal(r.daemon.state, "failed");
  const err = fake.messages.find((m) => m.kind === "error")!;
  assert.match(err.text, /kept stopping \(exit code 2\); it was restarted 3 times/);
  assert.deepEqual(err.items, ["Show Log", "Restart"]);
  assert.ok(r.states.includes("restarting"));
});

test("after a crash the next start is initialized and announced again", async () => {
  const r = rig();
  let starts = 0;
  r.daemon.onDidStart(() => starts++);
  await r.daemon.start();
  r.procs[0].exit(1);
  await settle();
  assert.equal(r.daemon.state, "restarting");
  r.runScheduled();
  await r.daemon.ready();
  assert.equal(r.daemon.state, "ready");
  assert.equal(starts, 2, "listeners (the diagnostics feeder) hear of the new daemon");
  await r.daemon.dispose();
});

test("a call while a restart is scheduled starts the daemon at once", async () => {
  const r = rig();
  await r.daemon.start();
  r.procs[0].exit(1);
  await settle();
  assert.equal(r.delays.length, 1);
  await r.daemon.ready();
  assert.equal(r.spawned.length, 2);
  r.runScheduled(); // the timer was cancelled: nothing left to run
  assert.equal(r.spawned.length, 2);
  await r.daemon.dispose();
});

test("stop sends shutdown then exit, and no restart follows", async () => {
  const r = rig();
  await r.daemon.start();
  await r.daemon.stop();
  const methods = r.procs[0].received.map((m) => m.method);
  assert.deepEqual(methods, ["initialize", "initialized", "shutdown", "exit"]);
  await settle();
  assert.equal(r.daemon.state, "stopped");
  assert.deepEqual(r.delays, []);
});

test("a daemon that ignores shutdown is killed", async () => {
  const r = rig(() => {
    const p = new FakeProcess();
    p.server.onRequest("shutdown", () => new Promise(() => undefined));
    return p;
  });
  await r.daemon.start();
  await r.daemon.stop();
  assert.equal(r.procs[0].signalCode, "SIGTERM");
});

test("a missing binary fails at once with a message naming the setting", async () => {
  const r = rig();
  const log = logChannel();
  const d = new Daemon({
    extensionPath: "/ext",
    clientVersion: "1",
    log,
    exists: () => false,
    spawn: () => assert.fail("no spawn"),
  });
  const err = await d.start().then(
    () => assert.fail("started"),
    (e: unknown) => e,
  );
  assert.match(String(err), /not found at \/opt\/tether\. Check the tether\.path setting/);
  assert.equal(d.state, "failed");
  assert.equal(r.spawned.length, 0);
  d.logStartError(err);
  assert.equal(log.lines.filter((l: string) => l.includes("not found")).length, 1, "said once in the log");
});

test("a daemon that refuses initialize is not restarted", async () => {
  const r = rig(() => {
    const p = new FakeProcess();
    p.server.onRequest("initialize", () => {
      throw new Error("no workspace folder");
    });
    return p;
  });
  await assert.rejects(r.daemon.start(), /refused to start: .*no workspace folder/);
  await settle();
  await settle();
  assert.equal(r.daemon.state, "failed");
  assert.deepEqual(r.delays, []);
});

test("restart resets the backoff and starts a fresh daemon", async () => {
  const r = rig();
  await r.daemon.start();
  await r.daemon.restart();
  assert.equal(r.spawned.length, 2);
  assert.equal(r.procs[0].exitCode, 0, "the old daemon exited cleanly");
  assert.equal(r.daemon.state, "ready");
  await r.daemon.dispose();
});

test("a restarting daemon says why: how it stopped, and which restart this is", async () => {
  const r = rig();
  await r.daemon.start();
  r.procs[0].exit(1);
  await settle();
  assert.equal(r.daemon.state, "restarting");
  assert.match(
    r.daemon.error!,
    /^The Tether daemon stopped \(exit code 1\) after \d+ ms; it is restarted in 500 ms \(restart 1 of 3\)\.$/,
  );
  r.runScheduled();
  await r.daemon.ready();
  assert.equal(r.daemon.error, undefined, "a ready daemon has nothing wrong to say");
  await r.daemon.dispose();
});

test("a daemon that never answers initialize is killed and restarted", async () => {
  const r = rig(() => {
    const p = new FakeProcess();
    p.server.onRequest("initialize", () => new Promise(() => undefined));
    return p;
  }, 20);
  await assert.rejects(r.daemon.start(), /did not answer within 0.02 s of starting/);
  await until(() => r.daemon.state === "restarting", "the restart");
  assert.equal(r.procs[0].signalCode, "SIGKILL", "the hung daemon is killed");
  assert.match(r.daemon.error!, /stopped \(it did not answer when started\)/);
  await r.daemon.dispose();
});
