import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { Approvals } from "../src/approval";
import type { ApprovalRequestParams, FileChange } from "../src/protocol";
import { Uri, fake } from "./fake/vscode";
import { StubDaemon, logChannel, rpcToken, settle } from "./stubDaemon";
import { hunks, original, proposed } from "./twoHunks";

// Two text files changed by a command (the first with two hunks, as the
// daemon's diff.Hunks makes them) and a binary one shown by its note.
const files: FileChange[] = [
  { path: "/ws/main.go", status: "modified", diff: "--- a/main.go\n", original, proposed, hunks },
  {
    path: "/ws/util.go",
    status: "created",
    diff: "--- /dev/null\n",
    original: "",
    proposed: "package main\n",
    hunks: [{ id: 1, oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: ["+package main"] }],
  },
  { path: "/ws/logo.png", status: "modified", diff: "# logo.png: binary\n", note: "not shown: binary, 2.0 KiB" },
];
const set: ApprovalRequestParams = {
  requestId: "r1",
  tool: "shell",
  title: "Apply what `make gen` changed (3 files)",
  kind: "edit",
  diff: files.map((f) => f.diff).join(""),
  files,
  alwaysScope: "file changes inside this workspace",
};

let daemon: StubDaemon;
let approvals: Approvals;
beforeEach(() => {
  fake.reset();
  daemon = new StubDaemon();
  approvals = new Approvals(daemon.asDaemon(), logChannel());
});

async function request(p: ApprovalRequestParams = set) {
  const handler = daemon.requestHandlers.get("approval/request")!;
  const cancel = rpcToken();
  const answer = handler(p, cancel.token) as Promise<any>;
  await settle();
  return { answer, cancel };
}

/** The proposal documents of the set, in its order. */
function proposals(): Uri[] {
  const shown = fake.executed.find((e) => e.command === "vscode.changes")!;
  return (shown.args[1] as Uri[][]).map((r) => r[2]);
}

test("a change set opens as one multi-file diff, counted as one change to review", async () => {
  await request();
  const shown = fake.executed.filter((e) => e.command === "vscode.changes");
  assert.equal(shown.length, 1, "one review for the whole set");
  const [title, resources] = shown[0].args as [string, Uri[][]];
  // VS Code's multi-file diff counts the files itself: the daemon's count goes.
  assert.equal(title, "Review Tether's changes: Apply what `make gen` changed");
  assert.deepEqual(
    resources.map((r) => r[0].path),
    ["/ws/main.go", "/ws/util.go", "/ws/logo.png"],
  );
  assert.deepEqual(
    resources.map((r) => [r[1].scheme, r[2].scheme]),
    Array(3).fill(["tether-original", "tether-proposed"]),
  );
  assert.equal(fake.document(resources[0][2])!.getText(), proposed);
  assert.equal(await fake.provided(resources[0][1]), original);
  assert.equal(
    fake.document(resources[2][2])!.getText(),
    "(not shown: binary, 2.0 KiB)\n",
    "a binary file shows its note",
  );
  assert.equal(fake.contexts.get("tether.reviewing"), true);
  const status = fake.statusItems.find((i) => i.id === "tether.review")!;
  assert.equal(status.text, "$(diff) Tether: 1 change to review");
});

test("approving the set as shown answers yes and closes every file", async () => {
  const { answer } = await request();
  approvals.answer("yes", proposals()[1]);
  assert.deepEqual(await answer, { answer: "yes" });
  await settle();
  assert.equal(approvals.reviews.length, 0);
  assert.equal(fake.contexts.get("tether.reviewing"), false);
});

test("each file has the set's actions, a lens to leave it out, and its hunks", async () => {
  await request();
  const [main, , logo] = proposals();
  const titles = (u: Uri) => fake.lenses(u).map((l) => l.command!.title);
  assert.deepEqual(titles(main), [
    "$(check) Approve",
    "$(close) Reject",
    "$(check-all) Always",
    "$(debug-step-over) Skip",
    "$(remove) Leave this file out",
    "$(close) Drop hunk 1/2",
    "$(close) Drop hunk 2/2",
  ]);
  assert.match((fake.lenses(main)[0].command as { tooltip?: string }).tooltip ?? "", /all 3 files of this change/);
  assert.deepEqual(titles(logo).slice(4), ["$(remove) Leave this file out"], "a binary file has no hunks");
});

test("the answer carries each file's part: hunks kept, files left out", async () => {
  const { answer } = await request();
  const [main, util] = proposals();
  await approvals.toggleHunk(main.toString(), 1);
  assert.equal(fake.document(main)!.getText(), original.replace("l15", "L15"));
  approvals.toggleFile(util.toString());
  assert.deepEqual(
    fake
      .lenses(util)
      .map((l) => l.command!.title)
      .slice(4),
    ["$(add) Take this file back in (left out)"],
  );
  approvals.answer("always", main);
  assert.deepEqual(await answer, {
    answer: "always",
    files: [
      { path: "/ws/main.go", hunks: [2], content: undefined },
      { path: "/ws/util.go", skip: true },
    ],
  });
});

test("text typed into a file of the set is its content; a file taken back in is applied", async () => {
  const { answer } = await request();
  const [main, util] = proposals();
  fake.document(main)!.type("the user's text\n");
  approvals.toggleFile(util.toString());
  approvals.toggleFile(util.toString());
  approvals.answer("yes", util);
  assert.deepEqual(await answer, {
    answer: "yes",
    files: [{ path: "/ws/main.go", hunks: undefined, content: "the user's text\n" }],
  });
});

test("reject and skip answer for the whole set; the daemon cancelling skips", async () => {
  for (const a of ["no", "skip"] as const) {
    const { answer } = await request();
    approvals.toggleFile(proposals()[0].toString());
    approvals.answer(a, proposals()[0]);
    assert.deepEqual(await answer, { answer: a });
    fake.executed = [];
  }
  const { answer, cancel } = await request();
  cancel.cancel();
  assert.deepEqual(await answer, { answer: "skip" });
});
