import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { RequestIds } from "../src/requestIds";
import { TetherTool, modelText, registerTools } from "../src/tools";
import { CancellationTokenSource, LanguageModelTextPart, fake } from "./fake/vscode";
import { StubDaemon, logChannel } from "./stubDaemon";

let daemon: StubDaemon;
beforeEach(() => {
  fake.reset();
  daemon = new StubDaemon();
  daemon.answer = (method) =>
    method === "tools/call"
      ? { content: "done", isError: false }
      : { title: "t", message: "Reading a.go", needsApproval: false };
});

function text(result: any): string {
  return result.content.map((p: LanguageModelTextPart) => p.value).join("");
}

test("invoke sends tools/call with the token budget and one request id per chat request", async () => {
  const tool = new TetherTool(daemon.asDaemon(), "read_file", new RequestIds(), logChannel());
  const cts = new CancellationTokenSource();
  const turn1 = {};
  const turn2 = {};
  await tool.invoke(
    {
      input: { path: "a" },
      toolInvocationToken: turn1,
      tokenizationOptions: { tokenBudget: 4096.7, countTokens: async () => 0 },
    } as any,
    cts.token,
  );
  await tool.invoke({ input: { path: "b" }, toolInvocationToken: turn1 } as any, cts.token);
  await tool.invoke({ input: { path: "c" }, toolInvocationToken: turn2 } as any, cts.token);
  const [a, b, c] = daemon.requests.map((r) => r.params);
  assert.deepEqual(Object.keys(a).sort(), ["arguments", "name", "requestId", "tokenBudget"]);
  assert.equal(a.name, "read_file");
  assert.deepEqual(a.arguments, { path: "a" });
  assert.equal(a.tokenBudget, 4096);
  assert.equal(b.tokenBudget, undefined, "no budget given, none sent");
  assert.equal(a.requestId, b.requestId);
  assert.notEqual(a.requestId, c.requestId);
  assert.equal(daemon.requests[0].token, cts.token, "the call's cancellation token goes with the request");
});

test("an error result is returned as text for the model, not thrown", async () => {
  daemon.answer = () => ({ content: "old_string was not found; read the file again", isError: true });
  const tool = new TetherTool(daemon.asDaemon(), "edit_file", new RequestIds(), logChannel());
  const res = await tool.invoke({ input: {}, toolInvocationToken: undefined }, new CancellationTokenSource().token);
  assert.equal(text(res), "old_string was not found; read the file again");
});

test("the diff of what was written follows the message, as the message refers to it", async () => {
  const diff = "--- a/g.txt\n+++ b/g.txt\n@@ -3 +3 @@\n-03: Hello\n+03: Good morning\n";
  daemon.answer = () => ({ content: "Edited g.txt. The diff is what was written.\n", isError: false, diff });
  const tool = new TetherTool(daemon.asDaemon(), "multi_edit", new RequestIds(), logChannel());
  const res = await tool.invoke({ input: {}, toolInvocationToken: undefined }, new CancellationTokenSource().token);
  assert.equal(text(res), `Edited g.txt. The diff is what was written.\n\n${diff}`);
});

test("a diff too big for the token budget is cut at a line, with a note", () => {
  const lines = Array.from({ length: 1000 }, (_, i) => `+line ${i}\n`).join("");
  const out = modelText({ content: "Wrote big.txt.", isError: false, diff: lines }, 500);
  assert.ok(out.length <= 500 * 4, `${out.length} chars is over the budget`);
  assert.ok(out.startsWith("Wrote big.txt.\n\n+line 0\n"));
  assert.match(out, /\n… \[\d+ more diff lines left out; read the file to see the result\]\n$/);
  const shown = out.split("\n").filter((l) => l.startsWith("+line")).length;
  assert.equal(
    Number(/(\d+) more diff lines/.exec(out)![1]),
    1000 - shown,
    "the note counts exactly what was left out",
  );
});

test("a result without a diff is the message alone", () => {
  assert.equal(modelText({ content: "No matches.", isError: false }), "No matches.");
});

test("a failed request becomes text that says what failed", async () => {
  daemon.answer = () => {
    throw new Error("The Tether daemon was not found at /x");
  };
  const tool = new TetherTool(daemon.asDaemon(), "grep", new RequestIds(), logChannel());
  const res = await tool.invoke({ input: {}, toolInvocationToken: undefined }, new CancellationTokenSource().token);
  assert.match(text(res), /Tether could not run grep: The Tether daemon was not found/);
});

test("prepareInvocation shows the daemon's message and never asks for confirmation", async () => {
  const tool = new TetherTool(daemon.asDaemon(), "read_file", new RequestIds(), logChannel());
  const prepared: any = await tool.prepareInvocation({ input: { path: "a.go" } }, new CancellationTokenSource().token);
  assert.deepEqual(prepared, { invocationMessage: "Reading a.go" });
  assert.equal(daemon.requests[0].method, "tools/prepare");
  assert.deepEqual(daemon.requests[0].params.arguments, { path: "a.go" });
});

test("prepareInvocation falls back to a plain message when the daemon cannot answer", async () => {
  daemon.answer = () => {
    throw new Error("down");
  };
  const tool = new TetherTool(daemon.asDaemon(), "glob", new RequestIds(), logChannel());
  const prepared: any = await tool.prepareInvocation({ input: {} }, new CancellationTokenSource().token);
  assert.deepEqual(prepared, { invocationMessage: "Running glob" });
});

test("registerTools registers the contributed tether_ tools under their VS Code names", () => {
  registerTools(daemon.asDaemon(), ["tether_read_file", "tether_grep", "someone_else"], logChannel());
  assert.deepEqual([...fake.tools.keys()], ["tether_read_file", "tether_grep"]);
});
