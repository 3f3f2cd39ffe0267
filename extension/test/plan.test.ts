import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import {
  PlanNode,
  PlanView,
  activityTreeItem,
  formatDuration,
  maxRequestNodes,
  planViewId,
  resultText,
  showActivityCommand,
} from "../src/plan";
import type { Activity } from "../src/protocol";
import { ThemeIcon, TreeItemCollapsibleState, fake } from "./fake/vscode";
import { StubDaemon, labelOf } from "./stubDaemon";

beforeEach(() => fake.reset());

function setup() {
  const daemon = new StubDaemon();
  const shown: { name: string; text: string }[] = [];
  const docs = { show: async (name: string, text: string) => void shown.push({ name, text }) };
  const view = new PlanView(daemon.asDaemon(), docs as any);
  const todo = (items: unknown) => daemon.notificationHandlers.get("todo/changed")!({ items });
  const activity = (a: Partial<Activity>) =>
    daemon.notificationHandlers.get("tools/activity")!({
      requestId: "r1",
      tool: "read_file",
      title: "",
      status: "running",
      ...a,
    });
  return { daemon, view, shown, todo, activity };
}

/** The tree as text: one line a node, indented, with its icon and description. */
function render(view: PlanView, node?: PlanNode, depth = 0): string[] {
  return view.getChildren(node).flatMap((n) => {
    const t = view.getTreeItem(n);
    const icon = String((t.iconPath as unknown as ThemeIcon | undefined)?.id);
    const line = `${"  ".repeat(depth)}${labelOf(t)} [${icon}]${t.description ? " " + String(t.description) : ""}`;
    return [line, ...render(view, n, depth + 1)];
  });
}

const act = (callId: string, tool: string, status: Activity["status"], extra: Partial<Activity> = {}): Activity => ({
  requestId: "r1",
  callId,
  tool,
  title: `${tool} ${callId}`,
  status,
  ...extra,
});

test("items are parents and their calls children, a sub-agent's calls under it", () => {
  const { view, todo } = setup();
  todo([
    { text: "Explore", status: "done", activity: [act("1", "grep", "ok", { durationMs: 40 })] },
    {
      text: "Fix",
      status: "in_progress",
      activity: [
        act("2", "agent", "running"),
        act("2.1", "read_file", "ok", { parentCallId: "2", durationMs: 1500 }),
        act("2.2", "write_file", "refused", { parentCallId: "2", durationMs: 3 }),
        act("3", "edit_file", "error", { durationMs: 65_000 }),
      ],
    },
    { text: "Test", status: "pending" },
  ]);
  assert.deepEqual(render(view), [
    "Explore [pass-filled]",
    "  grep 1 [pass] 40 ms",
    "Fix [loading~spin] in progress",
    "  agent 2 [loading~spin] running",
    "    read_file 2.1 [pass] 1.5 s",
    "    write_file 2.2 [circle-slash] 3 ms",
    "  edit_file 3 [error] 1 min 5 s",
    "Test [circle-large-outline]",
  ]);
  const [explore, fix, pending] = view.getChildren();
  assert.equal(
    view.getTreeItem(fix).collapsibleState,
    TreeItemCollapsibleState.Expanded,
    "the step in progress is open",
  );
  assert.equal(
    view.getTreeItem(explore).collapsibleState,
    TreeItemCollapsibleState.Collapsed,
    "a done step with calls is closed",
  );
  assert.equal(view.getTreeItem(pending).collapsibleState, TreeItemCollapsibleState.None);
});

test("the badge counts the steps left", () => {
  const { todo } = setup();
  todo([
    { text: "a", status: "done" },
    { text: "b", status: "in_progress" },
    { text: "c", status: "pending" },
  ]);
  assert.deepEqual(fake.treeViews.get(planViewId)!.badge, { value: 2, tooltip: "2 steps of the plan left" });
  todo([
    { text: "a", status: "done" },
    { text: "b", status: "done" },
    { text: "c", status: "in_progress" },
  ]);
  assert.deepEqual(fake.treeViews.get(planViewId)!.badge, { value: 1, tooltip: "1 step of the plan left" });
  todo([{ text: "a", status: "done" }]);
  assert.equal(fake.treeViews.get(planViewId)!.badge, undefined);
});

test("a request with no plan shows its calls under its own node, nested, running then done", () => {
  const { view, activity } = setup();
  activity({ callId: "7", tool: "agent", title: "Sub-agent (inspect): find it" });
  assert.equal(fake.contexts.get("tether.hasPlan"), true, "the view shows for a request without a plan");
  activity({ callId: "7.1", parentCallId: "7", tool: "grep", title: "Searching for x" });
  assert.deepEqual(render(view), [
    "Request r1 [loading~spin] 1 call, running",
    "  Sub-agent (inspect): find it [loading~spin] running",
    "    Searching for x [loading~spin] running",
  ]);
  activity({ callId: "7.1", parentCallId: "7", tool: "grep", title: "Searching for x", status: "ok", durationMs: 12 });
  activity({ callId: "7", tool: "agent", title: "Sub-agent (inspect): find it", status: "error", durationMs: 2400 });
  assert.deepEqual(render(view), [
    "Request r1 [comment-discussion] 1 call",
    "  Sub-agent (inspect): find it [error] 2.4 s",
    "    Searching for x [pass] 12 ms",
  ]);
});

test("a request that writes the plan gets no request node; its calls are under the step", () => {
  const { view, todo, activity } = setup();
  activity({ callId: "1", tool: "todo", title: "Updating the plan" });
  activity({ callId: "1", tool: "todo", title: "Updating the plan", status: "ok", durationMs: 1 });
  todo([{ text: "Look", status: "in_progress", activity: [act("2", "read_file", "running")] }]);
  activity({ callId: "2", tool: "read_file", title: "read_file 2" });
  assert.deepEqual(render(view), ["Look [loading~spin] in progress", "  read_file 2 [loading~spin] running"]);
  // The end arrives live before the plan that carries it: the live state wins.
  activity({ callId: "2", tool: "read_file", title: "read_file 2", status: "ok", durationMs: 5 });
  assert.deepEqual(render(view), ["Look [loading~spin] in progress", "  read_file 2 [pass] 5 ms"]);
});

test("only the newest requests keep a node", () => {
  const { view, activity } = setup();
  for (let i = 0; i < maxRequestNodes + 3; i++) {
    activity({ requestId: `req-${i}`, callId: String(i), status: "ok" });
  }
  const labels = view.getChildren().map((n) => labelOf(view.getTreeItem(n)));
  assert.equal(labels.length, maxRequestNodes);
  assert.equal(labels[0], `Request req-${maxRequestNodes + 2}`);
});

test("a finished call opens its result, with the diff for a change; a running one opens nothing", async () => {
  const { daemon, shown } = setup();
  assert.equal(activityTreeItem(act("5", "read_file", "running"), false).command, undefined);
  const item = activityTreeItem(act("5", "edit_file", "ok", { durationMs: 9 }), false);
  assert.equal(item.command!.command, showActivityCommand);
  daemon.answer = (method, params) => {
    assert.equal(method, "tools/result");
    assert.deepEqual(params, { callId: "5" });
    return {
      callId: "5",
      tool: "edit_file",
      title: "Edit a.go",
      content: "Edited a.go.\n",
      isError: false,
      diff: "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n",
    };
  };
  await fake.commands.get(showActivityCommand)!(...item.command!.arguments!);
  assert.equal(shown.length, 1);
  assert.equal(shown[0].name, "edit_file-5.diff");
  assert.equal(shown[0].text, "Edit a.go\n\nEdited a.go.\n\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n");
  daemon.answer = () => {
    throw new Error('no result is kept for call "5"');
  };
  await fake.commands.get(showActivityCommand)!("5");
  assert.match(fake.messages.at(-1)!.text, /cannot show that call's result: no result is kept/);
});

test("results read as the model got them", () => {
  assert.equal(
    resultText({ callId: "1", tool: "grep", title: "", content: "x:1:y\n\n", isError: true }),
    "grep (failed)\n\nx:1:y\n",
  );
});

test("durations read as people read them", () => {
  assert.deepEqual([0, 999, 1000, 1540, 59_999, 125_000].map(formatDuration), [
    "<1 ms",
    "999 ms",
    "1 s",
    "1.5 s",
    "60 s",
    "2 min 5 s",
  ]);
});

test("a daemon that stops takes its plan and calls with it", () => {
  const { daemon, view, todo, activity } = setup();
  todo([{ text: "a", status: "pending" }]);
  activity({ callId: "1" });
  daemon.stopped.fire();
  assert.deepEqual(view.getChildren(), []);
  assert.equal(fake.contexts.get("tether.hasPlan"), false);
});
