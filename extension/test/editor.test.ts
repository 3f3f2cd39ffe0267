// What the user sees around the daemon: the log channel's lines, the
// status item, the settings sent to the daemon, the request log.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { daemonSettings, readConfig } from "../src/config";
import { levelOf, logDaemonLine, parseDaemonLine, parseLogfmt } from "../src/daemonLog";
import { RequestLog, diffCounts } from "../src/requestLog";
import { StatusItem, statusLook } from "../src/status";
import { EventEmitter, MarkdownString, ThemeColor, fake } from "./fake/vscode";

beforeEach(() => fake.reset());

test("the daemon's slog lines become a level and a message, without its timestamp", () => {
  const cases: [string, { level: string; message: string }][] = [
    [
      'time=2026-05-01T10:00:00.000Z level=INFO msg="serving" version=0.1.0',
      { level: "info", message: "serving version=0.1.0" },
    ],
    [
      'time=2026-05-01T10:00:00.000Z level=WARN msg="saving a rule" rule="run git" err="disk full"',
      { level: "warn", message: 'saving a rule rule="run git" err="disk full"' },
    ],
    ["time=2026-05-01T10:00:00.000Z level=ERROR msg=boom", { level: "error", message: "boom" }],
    [
      'time=2026-05-01T10:00:00.000Z level=DEBUG msg="a \\"quoted\\" word" path=/tmp/a',
      { level: "debug", message: 'a "quoted" word path=/tmp/a' },
    ],
    ["time=2026-05-01T10:00:00.000Z level=DEBUG-4 msg=chatty", { level: "trace", message: "chatty" }],
    ['time=x level=INFO msg="empty attr" e=""', { level: "info", message: 'empty attr e=""' }],
    [
      "panic: runtime error: index out of range [3] with length 3",
      { level: "error", message: "panic: runtime error: index out of range [3] with length 3" },
    ],
    ["goroutine 1 [running]:", { level: "error", message: "goroutine 1 [running]:" }],
  ];
  for (const [line, want] of cases) {
    assert.deepEqual(parseDaemonLine(line), want, line);
  }
  assert.equal(parseLogfmt('a="unterminated'), undefined);
  assert.equal(levelOf("WARN+2"), "warn");
  assert.equal(levelOf("INFO+4"), "warn");
  assert.equal(levelOf("ERROR+1"), "error");
  assert.equal(levelOf("nonsense"), "info");
});

test("each stderr line is logged at its own level, so the channel's filter works", () => {
  const logged: string[] = [];
  const ch: any = {};
  for (const l of ["trace", "debug", "info", "warn", "error"]) {
    ch[l] = (m: string) => logged.push(`${l}: ${m}`);
  }
  logDaemonLine(ch, 'time=t level=WARN msg="slow disk" ms=1200');
  logDaemonLine(ch, "   ");
  logDaemonLine(ch, "time=t level=INFO msg=ready");
  assert.deepEqual(logged, ["warn: slow disk ms=1200", "info: ready"]);
});

test("the status item says the state in words, turns red when the daemon is down, and a click restarts it", () => {
  const ready = statusLook("ready", undefined);
  assert.equal(ready.text, "$(shield) Tether");
  assert.equal(ready.alarm, false);
  assert.equal(ready.command, "tether.showLog");
  const restarting = statusLook(
    "restarting",
    "The Tether daemon stopped (signal SIGKILL) after 3.0 s; it is restarted in 500 ms (restart 1 of 5).",
  );
  assert.equal(restarting.text, "$(sync~spin) Tether: restarting");
  assert.equal(restarting.alarm, true);
  assert.equal(restarting.command, "tether.restart");
  assert.match(restarting.reason!, /SIGKILL/);
  const failed = statusLook("failed", "The Tether daemon kept stopping");
  assert.equal(failed.text, "$(error) Tether: stopped");
  assert.equal(failed.alarm, true);
  assert.equal(failed.command, "tether.restart");
  assert.equal(statusLook("starting", "old reason").reason, undefined, "a daemon starting has nothing wrong to say");
});

test("the status item follows the daemon's state, with the reason in the tooltip", () => {
  const states = new EventEmitter<string>();
  const daemon: any = {
    state: "ready",
    error: undefined,
    initializeResult: { serverInfo: { name: "tether", version: "1.0" }, tools: [1, 2] },
    onDidChangeState: states.event,
  };
  const item = new StatusItem(daemon);
  const shown = fake.statusItems.find((i) => i.id === "tether.status")!;
  const tooltip = () => (shown.tooltip instanceof MarkdownString ? shown.tooltip.value : String(shown.tooltip));
  assert.equal(shown.text, "$(shield) Tether");
  assert.match(tooltip(), /tether 1\.0, 2 tools/);
  daemon.state = "restarting";
  daemon.error = "The Tether daemon stopped (signal SIGKILL) after 2.0 s";
  states.fire("restarting");
  assert.equal(shown.text, "$(sync~spin) Tether: restarting");
  assert.deepEqual(shown.backgroundColor, new ThemeColor("statusBarItem.errorBackground"));
  assert.match(tooltip(), /SIGKILL/);
  assert.match(tooltip(), /Click to restart it now/);
  assert.equal(shown.command, "tether.restart");
  daemon.state = "ready";
  daemon.error = undefined;
  states.fire("ready");
  assert.equal(shown.backgroundColor, undefined);
  item.dispose();
});

test("tether.diagnostics.settleMs reaches the daemon; 0 means do not wait", () => {
  assert.equal(readConfig().diagnosticsSettleMs, 3000, "the default");
  fake.config["tether.diagnostics.settleMs"] = 4500;
  assert.equal(daemonSettings(readConfig(), undefined).diagnosticsSettleMs, 4500);
  fake.config["tether.diagnostics.settleMs"] = 0;
  assert.equal(daemonSettings(readConfig(), undefined).diagnosticsSettleMs, -1);
});

test("diff counts are per file, new and deleted files included", () => {
  const diff = [
    "--- a/a.go",
    "+++ b/a.go",
    "@@ -1,3 +1,3 @@",
    " x",
    "-y",
    "+Y",
    "+Z",
    "--- /dev/null",
    "+++ b/new.txt",
    "@@ -0,0 +1,2 @@",
    "+1",
    "+2",
    "--- a/gone.txt",
    "+++ /dev/null",
    "@@ -1 +0,0 @@",
    "-bye",
    "",
  ].join("\n");
  assert.deepEqual(diffCounts(diff), {
    "a.go": { added: 2, removed: 1 },
    "new.txt": { added: 2, removed: 0 },
    "gone.txt": { added: 0, removed: 1 },
  });
});

test("the request log keeps the newest requests, across reloads", async () => {
  const store = new Map<string, unknown>();
  const memento: any = {
    get: (k: string) => store.get(k),
    update: async (k: string, v: unknown) => void store.set(k, JSON.parse(JSON.stringify(v))),
  };
  let now = 0;
  const log = new RequestLog(memento, () => now);
  for (let i = 0; i < 105; i++) {
    now = i;
    log.record(`r${i}`, `call ${i}`, undefined);
  }
  log.record("r104", "call 104", undefined);
  log.record("r104", "second", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n");
  const again = new RequestLog(memento);
  assert.equal(again.get("r0"), undefined, "the oldest went");
  assert.deepEqual(again.get("r104"), {
    started: 104,
    calls: ["call 104", "second"],
    files: { f: { added: 1, removed: 1 } },
  });
  log.record("", "no request", undefined);
  assert.equal(Object.keys(store.get("tether.requests") as object).length, 100);
});
