import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { ComposeRuns, childText, runText, showComposeRuns } from "../src/compose";
import { Daemon } from "../src/daemon";
import { InfoDocuments } from "../src/infoDocuments";
import { toolsActivity } from "../src/protocol";
import { RequestIds } from "../src/requestIds";
import { newToolContext, TetherTool } from "../src/tools";
import { CancellationTokenSource, LanguageModelTextPart, fake } from "./fake/vscode";
import { StubDaemon, logChannel, until } from "./stubDaemon";

let daemon: StubDaemon;
beforeEach(() => {
  fake.reset();
  daemon = new StubDaemon();
});

function activity(params: object): void {
  daemon.notificationHandlers.get("tools/activity")!(params);
}

test("a compose call is kept with its program, its calls as they are reported, and its result", async () => {
  const runs = new ComposeRuns(daemon.asDaemon());
  const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n";
  let release!: () => void;
  const answered = new Promise<void>((r) => (release = r));
  daemon.answer = async (_method: string, params: any) => {
    const r1 = params.requestId;
    // While the program runs, the daemon reports its calls.
    activity({
      requestId: r1,
      callId: "9.1",
      parentCallId: "9",
      tool: "read_file",
      title: "Reading a.txt",
      status: "running",
      input: '{"path":"a.txt"}',
    });
    activity({
      requestId: r1,
      callId: "9.1",
      parentCallId: "9",
      tool: "read_file",
      title: "Reading a.txt",
      status: "ok",
      durationMs: 3,
      input: '{"path":"a.txt"}',
      output: "1\ta",
    });
    activity({
      requestId: r1,
      callId: "9.2",
      parentCallId: "9",
      tool: "edit_file",
      title: "Editing a.txt",
      status: "ok",
      durationMs: 5,
      diff,
    });
    activity({ requestId: "other", callId: "5.1", parentCallId: "5", tool: "read_file", title: "x", status: "ok" });
    await answered;
    return { content: "done\n\nTool calls (2):\n1. read_file ok\n2. edit_file ok\n", isError: false, diff };
  };
  const ids = new RequestIds();
  const tool = new TetherTool(
    daemon.asDaemon(),
    "compose",
    { ...newToolContext(), ids, composeRuns: runs },
    logChannel(),
  );
  const turn = {};
  const pending = tool.invoke(
    { input: { code: 'const r = await tools.tether.read_file({path: "a.txt"})' }, toolInvocationToken: turn } as any,
    new CancellationTokenSource().token,
  );
  await until(() => runs.list().length === 1, "the run is kept"); // once the call knows its request
  const [run] = runs.list();
  assert.equal(run.result, undefined, "running");
  release();
  const res = await pending;
  const text = (res as any).content.map((p: LanguageModelTextPart) => p.value).join("");
  assert.ok(!text.includes("+++ b/a.txt"), "a program's diff stays out of the model's text");
  assert.equal(run.parentCallId, "9");
  assert.deepEqual(
    run.children.map((c) => `${c.callId} ${c.tool} ${c.status}`),
    ["9.1 read_file ok", "9.2 edit_file ok"],
  );
  assert.equal(run.children[0].output, "1\ta");
  assert.ok(runText(run).includes("const r = await tools.tether.read_file"));
  assert.ok(runText(run).includes("Tool calls (2)"));
  const child = childText(run.children[1]);
  assert.ok(child.includes("```diff") && child.includes("+A"), child);
  assert.ok(childText(run.children[0]).includes('"path": "a.txt"'), "input shown as JSON");
});

test("Show Compose Runs opens the header or a call", async () => {
  const runs = new ComposeRuns(daemon.asDaemon());
  const run = runs.begin("r1", { code: "return 1" });
  activity({
    requestId: "r1",
    callId: "3.1",
    parentCallId: "3",
    tool: "grep",
    title: "Searching for x",
    status: "error",
    output: "bad pattern",
  });
  runs.end(run, { content: "1\n", isError: false });
  const docs = new InfoDocuments();
  const shown: string[] = [];
  docs.show = async (_name: string, text: string) => {
    shown.push(text);
    return undefined as any;
  };
  const picks: any[][] = [];
  fake.onShowQuickPick = (items) => {
    picks.push(items);
    return picks.length === 1 ? items[0] : items[1];
  };
  await showComposeRuns(runs, docs);
  assert.equal(picks[1].length, 2, "a header and one row per call");
  assert.ok(picks[1][1].label.includes("$(error)"));
  assert.ok(shown[0].includes("bad pattern"));

  picks.length = 0;
  fake.onShowQuickPick = (items) => (picks.push(items), items[0]);
  await showComposeRuns(runs, docs);
  assert.ok(shown[1].includes("# Compose program (done)") && shown[1].includes("return 1"));
});

test("with no runs, Show Compose Runs says so", async () => {
  await showComposeRuns(new ComposeRuns(daemon.asDaemon()), new InfoDocuments());
  assert.match(fake.messages[0].text, /No compose program/);
});

test("two handlers of one notification both get it", () => {
  // The real Daemon fans a notification out to every handler registered for it.
  const seen: string[] = [];
  const d = new Daemon({ extensionPath: "/x", clientVersion: "0", log: logChannel() });
  d.onNotification(toolsActivity, () => seen.push("a"));
  d.onNotification(toolsActivity, () => seen.push("b"));
  // The chain is private: the test reads it as the connection would call it.
  const chains = (d as unknown as { notificationChains: Map<string, (p: unknown) => void> }).notificationChains;
  chains.get("tools/activity")?.({});
  assert.deepEqual(seen, ["a", "b"]);
});

test("tools/invoke runs a program's call through VS Code with the compose call's token, and answers its whole result", async () => {
  const { registerToolsInvoke } = await import("../src/compose");
  const { registerTools, newToolContext } = await import("../src/tools");
  const runs = new ComposeRuns(daemon.asDaemon());
  const ids = new RequestIds();
  registerTools(daemon.asDaemon(), ["tether_compose", "tether_edit_file"], logChannel(), {
    ...newToolContext(),
    ids,
    composeRuns: runs,
  });
  registerToolsInvoke(daemon.asDaemon(), runs);
  const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n";
  const turn = {};
  let childAnswer: any;
  daemon.answer = async (_m: string, params: any) => {
    if (params.name === "edit_file") {
      return { content: "Edited a.txt", isError: false, diff };
    }
    // The compose call: the daemon asks the editor to run one call of the program.
    childAnswer = await daemon.requestHandlers.get("tools/invoke")!(
      {
        requestId: params.requestId,
        parentCallId: "4",
        callId: "4.1",
        name: "edit_file",
        arguments: { path: "a.txt", old_string: "a", new_string: "A" },
      },
      new CancellationTokenSource().token,
    );
    return { content: "done", isError: false, diff };
  };
  await fake
    .tool("tether_compose")
    .invoke({ input: { code: "x" }, toolInvocationToken: fake.turnToken(turn) }, new CancellationTokenSource().token);
  assert.equal(fake.invoked.length, 1);
  assert.equal(fake.invoked[0].name, "tether_edit_file");
  assert.equal(
    fake.invoked[0].options.toolInvocationToken,
    turn,
    "the compose call's token, so the chat shows the call",
  );
  assert.deepEqual(
    childAnswer,
    { content: "Edited a.txt", isError: false, diff },
    "the whole result, not only its text",
  );
  const [compose, edit] = daemon.requests.map((r) => r.params);
  assert.equal(edit.requestId, compose.requestId, "the call belongs to the same request (one undo checkpoint)");
});
