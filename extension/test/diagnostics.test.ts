import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { DiagnosticsFeeder, toLspDiagnostic } from "../src/diagnostics";
import { Diagnostic, DiagnosticSeverity, Range, Uri, fake } from "./fake/vscode";
import { StubDaemon } from "./stubDaemon";

beforeEach(() => fake.reset());

test("VS Code diagnostics become LSP diagnostics", () => {
  const cases: { name: string; make: () => Diagnostic; want: object }[] = [
    {
      name: "error",
      make: () => new Diagnostic(new Range(2, 4, 2, 9), "undefined: x", DiagnosticSeverity.Error),
      want: {
        range: { start: { line: 2, character: 4 }, end: { line: 2, character: 9 } },
        severity: 1,
        message: "undefined: x",
      },
    },
    {
      name: "warning with source and code",
      make: () => {
        const d = new Diagnostic(new Range(0, 0, 0, 1), "unused", DiagnosticSeverity.Warning);
        d.source = "go vet";
        d.code = "unusedvar";
        return d;
      },
      want: {
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
        severity: 2,
        message: "unused",
        code: "unusedvar",
        source: "go vet",
      },
    },
    {
      name: "information with a linked code",
      make: () => {
        const d = new Diagnostic(new Range(1, 0, 1, 0), "note", DiagnosticSeverity.Information);
        d.code = { value: 1234, target: Uri.parse("https://example.invalid/1234") };
        return d;
      },
      want: {
        range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } },
        severity: 3,
        message: "note",
        code: 1234,
      },
    },
    {
      name: "hint",
      make: () => new Diagnostic(new Range(0, 0, 0, 0), "h", DiagnosticSeverity.Hint),
      want: { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: 4, message: "h" },
    },
  ];
  for (const c of cases) {
    assert.deepEqual(toLspDiagnostic(c.make() as any), c.want, c.name);
  }
});

function scheduler() {
  const queue: { fn: () => void; ms: number }[] = [];
  return {
    queue,
    schedule: (fn: () => void, ms: number) => {
      const e = { fn, ms };
      queue.push(e);
      return { dispose: () => queue.splice(queue.indexOf(e), 1) };
    },
    runAll() {
      while (queue.length) {
        queue.shift()!.fn();
      }
    },
  };
}

test("changes are batched: one publish per file, with its latest diagnostics", () => {
  const daemon = new StubDaemon();
  const s = scheduler();
  new DiagnosticsFeeder(daemon.asDaemon(), { schedule: s.schedule, debounceMs: 100 });
  const a = Uri.file("/ws/a.go");
  const b = Uri.file("/ws/b.go");
  fake.setDiagnostics(a, [new Diagnostic(new Range(0, 0, 0, 1), "first")]);
  fake.setDiagnostics(b, [new Diagnostic(new Range(0, 0, 0, 1), "b")]);
  fake.setDiagnostics(a, [new Diagnostic(new Range(0, 0, 0, 1), "second")]);
  fake.setDiagnostics(Uri.from({ scheme: "git", path: "/ws/a.go" }), [new Diagnostic(new Range(0, 0, 0, 1), "git")]);
  assert.equal(s.queue.length, 1, "one timer for the whole burst");
  assert.equal(s.queue[0].ms, 100);
  assert.equal(daemon.notifications.length, 0, "nothing before the debounce ends");
  s.runAll();
  const sent = daemon.notifications.map((n) => [
    n.method,
    n.params.uri,
    n.params.diagnostics.map((d: any) => d.message),
  ]);
  assert.deepEqual(sent, [
    ["diagnostics/publish", a.toString(), ["second"]],
    ["diagnostics/publish", b.toString(), ["b"]],
  ]);
});

test("a file whose diagnostics went away is published empty", () => {
  const daemon = new StubDaemon();
  const s = scheduler();
  new DiagnosticsFeeder(daemon.asDaemon(), { schedule: s.schedule });
  const a = Uri.file("/ws/a.go");
  fake.setDiagnostics(a, []);
  s.runAll();
  assert.deepEqual(daemon.notifications[0].params, { uri: a.toString(), diagnostics: [] });
});

test("a daemon start gets every file's diagnostics and the dirty files", () => {
  const daemon = new StubDaemon();
  const s = scheduler();
  new DiagnosticsFeeder(daemon.asDaemon(), { schedule: s.schedule });
  fake.setDiagnostics(Uri.file("/ws/a.go"), [new Diagnostic(new Range(0, 0, 0, 1), "a")], false);
  fake.setDiagnostics(Uri.file("/ws/b.go"), [new Diagnostic(new Range(0, 0, 0, 1), "b")], false);
  fake.addDocument(Uri.file("/ws/z.go"), "").isDirty = true;
  fake.addDocument(Uri.file("/ws/clean.go"), "");
  daemon.started.fire(undefined);
  assert.deepEqual(
    daemon.notifications.map((n) => [n.method, n.params.uri ?? n.params.uris]),
    [
      ["workspace/dirty", ["file:///ws/z.go"]],
      ["diagnostics/publish", "file:///ws/a.go"],
      ["diagnostics/publish", "file:///ws/b.go"],
    ],
  );
});

test("workspace/dirty is sent when the set of dirty files changes, and only then", () => {
  const daemon = new StubDaemon();
  const s = scheduler();
  new DiagnosticsFeeder(daemon.asDaemon(), { schedule: s.schedule });
  const b = fake.addDocument(Uri.file("/ws/b.go"), "");
  const a = fake.addDocument(Uri.file("/ws/a.go"), "");
  b.type("x");
  a.type("y");
  s.runAll();
  a.type("yy"); // still the same two dirty files
  s.runAll();
  void a.save();
  s.runAll();
  const dirty = daemon.notifications.filter((n) => n.method === "workspace/dirty").map((n) => n.params.uris);
  assert.deepEqual(dirty, [["file:///ws/a.go", "file:///ws/b.go"], ["file:///ws/b.go"]]);
});

test("workspace/dirty also lists the open files, and is sent when they change", () => {
  const daemon = new StubDaemon();
  const s = scheduler();
  new DiagnosticsFeeder(daemon.asDaemon(), { schedule: s.schedule });
  fake.addDocument(Uri.file("/ws/a.ts"), "");
  s.runAll();
  const b = fake.addDocument(Uri.file("/ws/b.ts"), "");
  fake.addDocument(Uri.parse("untitled:Untitled-1"), "");
  s.runAll();
  b.isClosed = true;
  fake.events.closeDocument.fire(b);
  s.runAll();
  const sent = daemon.notifications.filter((n) => n.method === "workspace/dirty").map((n) => n.params);
  assert.deepEqual(sent, [
    { uris: [], open: ["file:///ws/a.ts"] },
    { uris: [], open: ["file:///ws/a.ts", "file:///ws/b.ts"] },
    { uris: [], open: ["file:///ws/a.ts"] },
  ]);
});

test("a save is sent at once as workspace/saved, for files only", () => {
  const daemon = new StubDaemon();
  const s = scheduler();
  new DiagnosticsFeeder(daemon.asDaemon(), { schedule: s.schedule });
  const a = fake.addDocument(Uri.file("/ws/a.go"), "");
  const u = fake.addDocument(Uri.parse("untitled:Untitled-1"), "");
  a.type("x");
  void a.save();
  void u.save();
  const saved = daemon.notifications.filter((n) => n.method === "workspace/saved").map((n) => n.params);
  assert.deepEqual(saved, [{ uris: ["file:///ws/a.go"] }]);
});
