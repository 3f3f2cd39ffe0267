import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { commandError } from "../src/commands";
import { describeRule, ruleItem } from "../src/permissionCommands";
import { PlanView, planTreeItem, planViewId } from "../src/plan";
import { describeApply, stagedItem } from "../src/stagedCommands";
import { checkpointItem, describeUndo, relativeTime } from "../src/undoCommands";
import { ResponseError } from "vscode-jsonrpc";
import { ThemeIcon, fake } from "./fake/vscode";
import { StubDaemon } from "./stubDaemon";

beforeEach(() => fake.reset());

test("plan items show their status as an icon", () => {
  const cases: [string, string][] = [
    ["pending", "circle-large-outline"],
    ["in_progress", "loading~spin"],
    ["done", "pass-filled"],
    ["weird", "question"],
  ];
  for (const [status, icon] of cases) {
    const item = planTreeItem({ text: "step", status });
    assert.equal((item.iconPath as unknown as ThemeIcon).id, icon, status);
  }
});

test("todo/changed fills the plan view and shows it", () => {
  const daemon = new StubDaemon();
  const view = new PlanView(daemon.asDaemon());
  let changed = 0;
  view.onDidChangeTreeData(() => changed++);
  daemon.notificationHandlers.get("todo/changed")!({
    items: [
      { text: "a", status: "done" },
      { text: "b", status: "in_progress" },
    ],
  });
  assert.equal(fake.treeProviders.get(planViewId), view);
  assert.deepEqual(
    view.getChildren().map((n) => (n.kind === "item" ? n.item.text : n.kind)),
    ["a", "b"],
  );
  assert.equal(changed, 1);
  assert.equal(fake.contexts.get("tether.hasPlan"), true);
  daemon.notificationHandlers.get("todo/changed")!({ items: null });
  assert.deepEqual(view.getChildren(), []);
  assert.equal(fake.contexts.get("tether.hasPlan"), false);
});

test("undo reports restored files and conflicts", () => {
  const clean = describeUndo({ id: "c1", restored: ["a.go"], conflicts: [] });
  assert.equal(clean.summary, "Tether restored 1 file.");
  assert.equal(clean.clean, true);
  const mixed = describeUndo({
    id: "c2",
    restored: ["a.go", "b.go"],
    conflicts: [{ path: "c.go", reason: "changed since Tether wrote it" }],
  });
  assert.equal(mixed.summary, "Tether restored 2 files; 1 file changed since Tether wrote it and was left alone.");
  assert.equal(mixed.clean, false);
  assert.match(mixed.details, /## Left alone[\s\S]*- c\.go: changed since Tether wrote it/);
  assert.match(describeUndo({ id: "c3", restored: null, conflicts: null }).summary, /restored no files/);
  const replaced = describeUndo({ id: "c4", restored: ["a.go"], conflicts: [], replaced: ["a.go"] });
  assert.equal(replaced.clean, false, "a restore over unconfirmed content is worth a look");
  assert.match(replaced.details, /not confirmed writing[\s\S]*- a\.go/);
});

test("checkpoints are listed with their files and undone state", () => {
  const created = Date.parse("2026-01-02T03:04:05Z");
  const item = checkpointItem(
    {
      id: "7",
      requestId: "r",
      created: "2026-01-02T03:04:05Z",
      summary: "edited a.go",
      files: ["a.go", "b.go"],
      undone: true,
    },
    undefined,
    created + 5 * 60_000,
  );
  assert.equal(item.label, "$(discard) edited a.go (undone)");
  assert.equal(item.detail, "a.go, b.go");
  assert.equal(item.description, "5 minutes ago");
});

test("a checkpoint shows what its request did: the calls, and each file's lines added and removed", () => {
  const created = Date.parse("2026-01-02T03:04:05Z");
  const entry = {
    started: created,
    calls: ["Making 3 edits in a.go", "Running: go test ./..."],
    files: { "a.go": { added: 3, removed: 1 } },
  };
  const item = checkpointItem(
    {
      id: "8",
      requestId: "r",
      created: "2026-01-02T03:04:05Z",
      summary: "edited a.go, created b.go",
      files: ["a.go", "b.go"],
      undone: false,
    },
    entry,
    created + 2 * 3600_000,
  );
  assert.equal(item.label, "$(history) edited a.go, created b.go");
  assert.equal(item.description, "2 hours ago · Making 3 edits in a.go, Running: go test ./...");
  assert.equal(item.detail, "a.go +3 −1, b.go");
});

test("a checkpoint whose command's changes were interrupted says so, with a warning icon, until it is undone", () => {
  const created = Date.parse("2026-01-02T03:04:05Z");
  const note =
    "Tether stopped while it applied the changes of `make` (3 paths): each file holds its old or its new content, and undo puts back what was applied";
  const c = {
    id: "9",
    requestId: "r",
    created: "2026-01-02T03:04:05Z",
    summary: "created a.o",
    files: ["a.o"],
    undone: false,
    interrupted: note,
  };
  const item = checkpointItem(c, undefined, created);
  assert.equal(item.label, "$(warning) created a.o");
  assert.equal(item.detail, `a.o · ${note}.`);
  const undone = checkpointItem({ ...c, undone: true }, undefined, created);
  assert.equal(undone.label, "$(discard) created a.o (undone)");
  assert.equal(undone.detail, "a.o");
});

test("relative times read as people say them", () => {
  const now = Date.parse("2026-03-10T12:00:00Z");
  const cases: [number, string][] = [
    [10_000, "just now"],
    [90_000, "2 minutes ago"],
    [50 * 60_000, "1 hour ago"],
    [5 * 3600_000, "5 hours ago"],
    [30 * 3600_000, "yesterday"],
    [3 * 86400_000, "3 days ago"],
    [10 * 86400_000, "last week"],
    [400 * 86400_000, "last year"],
  ];
  for (const [ago, want] of cases) {
    assert.equal(relativeTime(now - ago, now), want, `${ago} ms ago`);
  }
});

test("saved rules are described as the daemon describes them", () => {
  const cases: [object, string][] = [
    [{ kind: "shell", program: "go" }, "always run go"],
    [{ kind: "fetch", host: "pkg.go.dev" }, "always fetch from pkg.go.dev"],
    [{ kind: "outside", dir: "/tmp" }, "always read in /tmp (its own files; not its subfolders)"],
    [{ kind: "edit" }, "always change files inside the workspace"],
    [{ kind: "memory" }, "always write project memory"],
    [{ kind: "shell", program: "go", description: "always run go (any arguments)" }, "always run go (any arguments)"],
    [{ kind: "shell", program: "git", subcommand: "status", network: false }, "always run git status"],
    [{ kind: "shell", program: "npm", subcommand: "ci", network: true }, "always run npm ci with network access"],
  ];
  for (const [rule, want] of cases) {
    assert.equal(describeRule(rule as any), want);
  }
});

test("each saved rule is a row to pick, a disabled one says why", () => {
  const ok = ruleItem({
    kind: "shell",
    program: "git",
    subcommand: "status",
    description: "always run git status",
    added: "2026-01-02T00:00:00Z",
  } as any);
  assert.match(ok.label, /pass.*always run git status/);
  assert.equal(ok.action, "rule");
  const broken = ruleItem({
    kind: "shell",
    program: "make",
    description: "always run make",
    disabled: 'its example "make deploy" should not be allowed and is',
    added: "2026-01-02T00:00:00Z",
  } as any);
  assert.match(broken.label, /warning/);
  assert.match(broken.detail ?? "", /Disabled: its example "make deploy"/);
});

test("a method the daemon lacks is reported as not supported yet", () => {
  assert.match(
    commandError("Undo", new ResponseError(-32601, "method not found: undo/undo")),
    /Undo is not available: this Tether daemon does not support it yet/,
  );
  assert.equal(commandError("Undo", new Error("nothing to undo")), "Undo failed: nothing to undo");
});

test("staged changes are listed and apply results reported", () => {
  const item = stagedItem({
    id: "s1",
    created: "2026-01-02T03:04:05Z",
    tool: "edit_file",
    title: "Edit a.go",
    diff: "",
    files: ["a.go"],
  });
  assert.equal(item.label, "Edit a.go");
  assert.equal(item.detail, "a.go");
  assert.deepEqual(describeApply({ applied: ["s1", "s2"], failed: [] }), {
    text: "Tether applied 2 staged changes.",
    ok: true,
  });
  assert.deepEqual(describeApply({ applied: [], failed: [{ id: "s3", reason: "a.go changed since" }] }), {
    text: "Tether applied 0 staged changes; 1 could not be applied: s3 (a.go changed since).",
    ok: false,
  });
});

test("a damaged checkpoint says so in the list, and its undo is not called clean", () => {
  const created = Date.parse("2026-01-02T03:04:05Z");
  const note =
    "its record is damaged: 1 entry could not be read; undo cannot put back b.go. Undo can still put back the 1 file it lists readably; a change recorded in the damaged part cannot be undone";
  const item = checkpointItem(
    {
      id: "9",
      requestId: "r",
      created: "2026-01-02T03:04:05Z",
      summary: "edited a.go",
      files: ["a.go"],
      undone: false,
      damaged: note,
    },
    undefined,
    created,
  );
  assert.equal(item.label, "$(warning) edited a.go (damaged)");
  assert.match(
    item.detail ?? "",
    /^a\.go · Its record is damaged: 1 entry could not be read; undo cannot put back b\.go\. .*cannot be undone\.$/,
  );
  const r = describeUndo({
    id: "9",
    restored: ["a.go"],
    conflicts: [{ path: "b.go", reason: "recorded in the damaged part" }],
    damaged: note,
  });
  assert.equal(r.clean, false);
  assert.match(r.summary, /part of the checkpoint's record is damaged/);
  assert.match(r.details, /## Damaged record\n\nThis checkpoint's record is damaged: 1 entry could not be read/);
});

test("a checkpoint the daemon summarises as damaged does not say so twice", () => {
  const created = Date.parse("2026-01-02T03:04:05Z");
  const item = checkpointItem(
    {
      id: "10",
      requestId: "r",
      created: "2026-01-02T03:04:05Z",
      summary: "damaged: nothing in it can be read",
      files: [],
      undone: false,
      damaged: "its record is damaged: 1 entry could not be read. Nothing in it can be put back",
    },
    undefined,
    created,
  );
  assert.equal(item.label, "$(warning) damaged: nothing in it can be read");
  assert.equal(item.detail, "Its record is damaged: 1 entry could not be read. Nothing in it can be put back.");
});
