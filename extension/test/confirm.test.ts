// The chat's confirmations for Tether's approvals: what VS Code is handed,
// how an answer given there reaches the daemon, and how a call VS Code
// confirmed by itself is told apart from one the user confirmed.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { Grants, alwaysLabel, callKey, confirmationMessages, ConfirmationLedger } from "../src/confirm";
import type { ApprovalRequestParams } from "../src/protocol";
import { RequestIds } from "../src/requestIds";
import { RequestLog } from "../src/requestLog";
import { TetherTool, ToolContext, waitingMessage } from "../src/tools";
import { CancellationTokenSource, MarkdownString, fake } from "./fake/vscode";
import { StubDaemon, logChannel } from "./stubDaemon";

const shell: ApprovalRequestParams = {
  requestId: "",
  tool: "shell",
  title: "Run touch and git: touch a && git add a",
  kind: "shell",
  command: "touch a && git add a",
  alwaysScope: "run touch and git without asking in this project",
};

beforeEach(() => fake.reset());

test("the confirmation carries the full command line and Tether's answers as links", () => {
  const m = confirmationMessages(shell, "c7");
  assert.equal(m.title, "Tether: run this command?");
  const md = m.message as unknown as MarkdownString & { isTrusted: unknown };
  assert.match(md.value, /^` touch a && git add a `$/m, "the command, whole, in code");
  assert.match(md.value, /\*\*Allow\*\* runs it this once/);
  assert.match(md.value, /\*\*Skip\*\* carries on without it/);
  const links = [...md.value.matchAll(/\[([^\]]+)\]\(command:tether\.confirmAnswer\?([^ )]+)/g)].map((x) => [x[1], JSON.parse(decodeURIComponent(x[2]))]);
  assert.deepEqual(links, [
    ["Always allow touch and git", ["c7", "always"]],
    ["No, stop", ["c7", "no"]],
  ]);
  assert.deepEqual(md.isTrusted, { enabledCommands: ["tether.confirmAnswer"] }, "only Tether's own command may run from it");
});

test("a command line cannot break out of its code span", () => {
  const m = confirmationMessages({ ...shell, command: "echo `x` ``y``\nrm z" }, "c1");
  const value = (m.message as unknown as MarkdownString).value;
  assert.ok(value.includes("``` echo `x` ``y`` ⏎ rm z ```"), value);
});

test("always is offered only where it allows more than this one step", () => {
  const cases: [Partial<ApprovalRequestParams>, string | undefined][] = [
    [{}, "Always allow touch and git"],
    [{ alwaysScope: "this command only: it runs no program, only shell builtins" }, undefined],
    [{ kind: "fetch", host: "pkg.go.dev", alwaysScope: "fetch from pkg.go.dev without asking" }, "Always allow pkg.go.dev"],
    [{ kind: "outside", path: "/etc/hosts", alwaysScope: "reading in /etc" }, "Always allow this folder"],
  ];
  for (const [p, want] of cases) {
    assert.equal(alwaysLabel({ ...shell, ...p } as ApprovalRequestParams), want, JSON.stringify(p));
    const value = (confirmationMessages({ ...shell, ...p } as ApprovalRequestParams, "c").message as unknown as MarkdownString).value;
    assert.equal(value.includes("Always allow"), want !== undefined);
  }
});

/** A ledger on a clock the test moves. */
function ledgerAt(start = 1000) {
  const clock = { now: start };
  const executed: string[] = [];
  const ledger = new ConfirmationLedger({ now: () => clock.now, humanMs: 400, execute: async (c) => void executed.push(c) });
  return { clock, ledger, executed };
}

test("a call the user confirmed is answered yes; one VS Code confirmed at once is not the user's answer", () => {
  const { clock, ledger } = ledgerAt();
  ledger.prepared("shell", { command: "touch a" }, shell);
  clock.now += 2500; // the user read it and clicked Allow
  assert.deepEqual(ledger.claim("shell", { command: "touch a" }), { answer: "yes", approval: shell });
  assert.equal(ledger.approvesByItself("shell"), false);

  ledger.prepared("shell", { command: "touch b" }, shell);
  clock.now += 15; // VS Code approved the tool for the session: no one clicked
  assert.equal(ledger.claim("shell", { command: "touch b" }), undefined);
  assert.equal(ledger.approvesByItself("shell"), true, "from now on, Tether asks for this tool itself");
  assert.equal(ledger.approvesByItself("web_fetch"), false);
});

test("the time a person needs is counted beyond the machine's own round trip", () => {
  const { clock, ledger } = ledgerAt();
  for (let i = 0; i < 5; i++) {
    ledger.preparedWithout("read_file", { path: `f${i}` });
    clock.now += 300; // a slow remote: every call takes 300 ms from prepare to invoke
    assert.equal(ledger.claim("read_file", { path: `f${i}` }), undefined);
  }
  assert.equal(ledger.threshold(), 400 + 2 * 300);
  ledger.prepared("shell", { command: "x" }, shell);
  clock.now += 500; // as fast as the machine: VS Code, not a person
  assert.equal(ledger.claim("shell", { command: "x" }), undefined);
});

test("a link in the confirmation records the answer and accepts VS Code's confirmation", async () => {
  const { clock, ledger, executed } = ledgerAt();
  const c = ledger.prepared("shell", { command: "touch a" }, shell);
  assert.equal(await ledger.choose(c.id, "always"), true);
  assert.deepEqual(executed, ["workbench.action.chat.acceptTool"]);
  clock.now += 5; // accepted by the command: as fast as VS Code, and still the user's answer
  assert.deepEqual(ledger.claim("shell", { command: "touch a" }), { answer: "always", approval: shell });
  assert.equal(await ledger.choose(c.id, "no"), false, "a confirmation is answered once");
});

test("a confirmation the user skipped (its call never ran) does not answer a later call with the same input", () => {
  const { clock, ledger } = ledgerAt();
  ledger.prepared("shell", { command: "touch a" }, shell); // skipped in VS Code: no invoke follows
  clock.now += 60_000;
  ledger.prepared("shell", { command: "touch a" }, shell);
  clock.now += 10; // and this one VS Code approved by itself
  assert.equal(ledger.claim("shell", { command: "touch a" }), undefined);
});

test("grants answer the daemon's approval/request only for the same request, tool, kind and command", () => {
  const g = new Grants();
  const d = g.add("r1", shell, "yes");
  const ask = (p: Partial<ApprovalRequestParams>) => g.take({ ...shell, requestId: "r1", ...p });
  assert.equal(ask({ requestId: "r2" }), undefined);
  assert.equal(ask({ tool: "compose" }), undefined);
  assert.equal(ask({ command: "touch b" }), undefined);
  assert.equal(ask({ kind: "edit" }), undefined, "an edit is always reviewed in its diff");
  assert.equal(ask({}), "yes");
  assert.equal(ask({}), undefined, "used up");
  d.dispose();
  const fetch: ApprovalRequestParams = { ...shell, kind: "fetch", tool: "web_fetch", host: "example.com", command: undefined };
  g.add("r1", fetch, "always");
  assert.equal(g.take({ ...fetch, requestId: "r1", host: "evil.example" }), undefined);
  assert.equal(g.take({ ...fetch, requestId: "r1" }), "always");
});

function toolCtx(ledger: ConfirmationLedger): ToolContext {
  return { ids: new RequestIds(), ledger, grants: new Grants(), requests: new RequestLog(), titles: new Map() };
}

test("prepareInvocation asks in VS Code's confirmation what the daemon would ask, and says when a call waits", async () => {
  const daemon = new StubDaemon();
  const { clock, ledger } = ledgerAt();
  const ctx = toolCtx(ledger);
  const tool = new TetherTool(daemon.asDaemon(), "shell", ctx, logChannel());
  const token = new CancellationTokenSource().token as any;

  daemon.answer = () => ({ title: "Run: touch a", message: "Running: touch a", needsApproval: true, approval: shell });
  const asked = await tool.prepareInvocation({ input: { command: "touch a" } } as any, token);
  assert.equal(asked.invocationMessage, "Running: touch a");
  assert.equal(asked.confirmationMessages?.title, "Tether: run this command?");

  daemon.answer = () => ({ title: "Run: ls", message: "Running: ls", needsApproval: false });
  const free = await tool.prepareInvocation({ input: { command: "ls" } } as any, token);
  assert.deepEqual(free, { invocationMessage: "Running: ls" });

  const edit: ApprovalRequestParams = { ...shell, kind: "edit", title: "Edit a.go", command: undefined };
  daemon.answer = () => ({ title: "Edit a.go", message: "Making 2 edits in a.go", needsApproval: true, approval: edit });
  const editTool = new TetherTool(daemon.asDaemon(), "multi_edit", ctx, logChannel());
  const review = await editTool.prepareInvocation({ input: { path: "a.go" } } as any, token);
  assert.deepEqual(review, { invocationMessage: "Making 2 edits in a.go: waiting for your review" }, "an edit is reviewed in the diff, not confirmed in the chat");

  // Once VS Code is seen approving the tool by itself, its confirmation is
  // no longer asked for: Tether's prompt asks, and the chat says it waits.
  daemon.answer = (method) => (method === "tools/call" ? { content: "ok", isError: false } : { title: "Run: touch b", message: "Running: touch b", needsApproval: true, approval: { ...shell, command: "touch b" } });
  await tool.prepareInvocation({ input: { command: "touch b" } } as any, token);
  clock.now += 5;
  await tool.invoke({ input: { command: "touch b" }, toolInvocationToken: undefined } as any, token);
  const after = await tool.prepareInvocation({ input: { command: "touch b" } } as any, token);
  assert.deepEqual(after, { invocationMessage: "Running: touch b: waiting for your approval" });
  assert.equal(waitingMessage("Reading /etc/hosts", { ...shell, kind: "outside" }), "Reading /etc/hosts: waiting for your approval");
});

test("the user's answer in the chat answers the daemon's approval/request during that call, and only then", async () => {
  const daemon = new StubDaemon();
  const { clock, ledger } = ledgerAt();
  const ctx = toolCtx(ledger);
  const tool = new TetherTool(daemon.asDaemon(), "shell", ctx, logChannel());
  const token = new CancellationTokenSource().token as any;
  daemon.answer = () => ({ title: "Run touch and git", message: "Running: touch a && git add a", needsApproval: true, approval: shell });
  const prepared = await tool.prepareInvocation({ input: { command: shell.command } } as any, token);
  const id = decodeURIComponent(/confirmAnswer\?([^ )]+)/.exec((prepared.confirmationMessages!.message as any).value)![1]);
  await ledger.choose(JSON.parse(id)[0], "always");
  clock.now += 3000;

  let answered: string | undefined;
  daemon.answer = (_method, params) => {
    // The daemon asks about the step while the call runs; the extension's
    // approval handler consults the grants first.
    answered = ctx.grants.take({ ...shell, requestId: params.requestId });
    return { content: "exit code 0", isError: false };
  };
  await tool.invoke({ input: { command: shell.command }, toolInvocationToken: undefined } as any, token);
  assert.equal(answered, "always", "the daemon gets the user's answer, and saves its rule");
  assert.equal(ctx.grants.size, 0, "the answer lives only as long as its call");
});

test("each request's calls and the lines their diffs changed are kept for the checkpoints browser", async () => {
  const daemon = new StubDaemon();
  const ctx = toolCtx(new ConfirmationLedger());
  const tool = new TetherTool(daemon.asDaemon(), "multi_edit", ctx, logChannel());
  const token = new CancellationTokenSource().token as any;
  const turn = {};
  daemon.answer = (method) =>
    method === "tools/prepare"
      ? { title: "Edit g.txt", message: "Making 2 edits in g.txt", needsApproval: false }
      : { content: "Edited g.txt", isError: false, diff: "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,3 @@\n-a\n+A\n+B\n c\n" };
  await tool.prepareInvocation({ input: { path: "g.txt" } } as any, token);
  await tool.invoke({ input: { path: "g.txt" }, toolInvocationToken: turn } as any, token);
  const requestId = daemon.requests.find((r) => r.method === "tools/call")!.params.requestId;
  const e = ctx.requests.get(requestId)!;
  assert.deepEqual(e.calls, ["Making 2 edits in g.txt"]);
  assert.deepEqual(e.files, { "g.txt": { added: 2, removed: 1 } });
  assert.equal(callKey("a", { x: 1 }), callKey("a", { x: 1 }));
});
