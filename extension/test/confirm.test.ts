// Tether's approvals asked in the chat: what VS Code is handed, and how the
// answer given there, Allow, Skip or one of Tether's links, reaches the
// daemon.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { ActiveCalls, ChatApprovals, alwaysLabel, approvalInput, confirmationMessages } from "../src/confirm";
import type { ApprovalRequestParams } from "../src/protocol";
import { RequestIds } from "../src/requestIds";
import { RequestLog } from "../src/requestLog";
import { TetherTool, ToolContext, callKey, waitingMessage } from "../src/tools";
import { CancellationTokenSource, LanguageModelTextPart, MarkdownString, fake } from "./fake/vscode";
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
  assert.match(md.value, /\*\*Allow Once\*\* runs it/);
  assert.match(md.value, /\*\*Skip\*\* carries on without it/);
  // Each of Tether's answers is a link drawn as a button (bold, in
  // brackets: VS Code's confirmation gives links the text's colour and keeps
  // no markup inside them), alone on its line with what it does.
  const links = [
    ...md.value.matchAll(
      /^\*\*\[\\\[ ([^\]\\]+) \\\]\]\(command:tether\.confirmAnswer\?([^ )]+) "[^"]*"\)\*\* (.+?) *$/gm,
    ),
  ].map((x) => [x[1], JSON.parse(decodeURIComponent(x[2])), x[3]]);
  assert.deepEqual(links, [
    [
      "Always allow touch and git",
      ["c7", "always"],
      "runs it, and from now on: run touch and git without asking in this project",
    ],
    ["No, stop", ["c7", "no"], "does not run it, and stops the agent to ask you how to go on"],
  ]);
  assert.deepEqual(
    md.isTrusted,
    { enabledCommands: ["tether.confirmAnswer"] },
    "only Tether's own command may run from it",
  );
});

test("a command line cannot break out of its code span", () => {
  const m = confirmationMessages({ ...shell, command: "echo `x` ``y``\nrm z" }, "c1");
  const value = (m.message as unknown as MarkdownString).value;
  assert.ok(value.includes("``` echo `x` ``y`` ⏎ rm z ```"), value);
});

test("the chat shows what is asked about as the approval tool's input", () => {
  assert.deepEqual(approvalInput(shell), { command: "touch a && git add a" });
  assert.deepEqual(approvalInput({ ...shell, kind: "fetch", host: "pkg.go.dev" }), { host: "pkg.go.dev" });
  assert.deepEqual(approvalInput({ ...shell, kind: "outside", path: "/etc/hosts" }), { path: "/etc/hosts" });
});

test("always is offered only where it allows more than this one step", () => {
  const cases: [Partial<ApprovalRequestParams>, string | undefined][] = [
    [{}, "Always allow touch and git"],
    [{ alwaysScope: "this command only: it runs no program, only shell builtins" }, undefined],
    [
      { kind: "fetch", host: "pkg.go.dev", alwaysScope: "fetch from pkg.go.dev without asking" },
      "Always allow pkg.go.dev",
    ],
    [
      { kind: "outside", path: "/etc/hosts", alwaysScope: "read in /etc (its own files; not its subfolders)" },
      "Always allow this folder",
    ],
  ];
  for (const [p, want] of cases) {
    assert.equal(alwaysLabel({ ...shell, ...p }), want, JSON.stringify(p));
    const value = (confirmationMessages({ ...shell, ...p }, "c").message as unknown as MarkdownString).value;
    assert.equal(value.includes("Always allow"), want !== undefined);
  }
});

/** A ChatApprovals whose tool invocations the test plays as VS Code would. */
function chatRig(user: (prepared: any, input: any) => Promise<"allow" | "skip" | "cancel">) {
  const executed: string[] = [];
  let accept: (() => void) | undefined;
  const chat: ChatApprovals = new ChatApprovals({
    execute: async (c) => {
      executed.push(c);
      accept?.();
    },
    invokeTool: (async (name: string, options: any) => {
      assert.equal(name, "tether_approval");
      const prepared = chat.prepareInvocation({ input: options.input });
      assert.ok(prepared.confirmationMessages, "VS Code is told to confirm");
      const choice = await new Promise<"allow" | "skip" | "cancel">((resolve) => {
        accept = () => resolve("allow");
        void user(prepared, options.input).then(resolve);
      });
      if (choice === "cancel") {
        throw new Error("Canceled");
      }
      if (choice === "skip") {
        return {
          content: [
            new LanguageModelTextPart("The user chose to skip the tool call, they want to proceed without running it"),
          ],
        };
      }
      return chat.invoke({ input: options.input, toolInvocationToken: options.toolInvocationToken });
    }) as any,
  });
  return { chat, executed };
}

const never = () => new Promise<never>(() => undefined);

test("an approval is asked in the chat of the call it belongs to; Allow answers yes", async () => {
  let seen: any;
  const { chat } = chatRig(async (prepared, input) => {
    seen = { prepared, input };
    return "allow";
  });
  const token = { sessionResource: "chat-1" };
  const running = chat.calls.enter("r1", token);
  assert.equal(chat.canAsk({ ...shell, requestId: "r1" }), true);
  assert.equal(chat.canAsk({ ...shell, requestId: "r2" }), false, "no call of that request runs in a chat");
  assert.equal(
    chat.canAsk({ ...shell, requestId: "r1", kind: "memory" }),
    false,
    "a memory write is not asked in the chat",
  );
  assert.equal(await chat.ask({ ...shell, requestId: "r1" }), "yes");
  assert.deepEqual(seen.input, { command: "touch a && git add a" }, "the chat shows what is asked about as the input");
  assert.equal(seen.prepared.confirmationMessages.title, "Tether: run this command?");
  assert.match(seen.prepared.invocationMessage, /^Tether asked: Run touch and git/, "neutral: the answer may be no");
  assert.equal(chat.waiting, 0);
  running.dispose();
  assert.equal(chat.canAsk({ ...shell, requestId: "r1" }), false, "the call ended");
});

test("Skip in VS Code, or the chat request stopping, answers skip", async () => {
  for (const choice of ["skip", "cancel"] as const) {
    const { chat } = chatRig(async () => choice);
    chat.calls.enter("r1", {});
    assert.equal(await chat.ask({ ...shell, requestId: "r1" }), "skip", choice);
  }
});

test("the links answer always or no, and accept the confirmation so the answer stands", async () => {
  for (const answer of ["always", "no"] as const) {
    const { chat, executed } = chatRig(async (prepared) => {
      const value = prepared.confirmationMessages.message.value as string;
      const m = [...value.matchAll(/confirmAnswer\?([^ )]+)/g)].map((x) => JSON.parse(decodeURIComponent(x[1])));
      const [id] = m.find((x) => x[1] === answer)!;
      assert.equal(await chat.choose(id, answer), true);
      return never();
    });
    chat.calls.enter("r1", {});
    assert.equal(await chat.ask({ ...shell, requestId: "r1" }), answer);
    assert.deepEqual(executed, ["workbench.action.chat.acceptTool"]);
  }
});

test("a link of an approval already answered does nothing", async () => {
  const { chat, executed } = chatRig(async () => "allow");
  chat.calls.enter("r1", {});
  await chat.ask({ ...shell, requestId: "r1" });
  assert.equal(await chat.choose("a1", "no"), false);
  assert.deepEqual(executed, []);
});

test("the approval tool invoked with nothing waiting still asks, and approves nothing", () => {
  const { chat } = chatRig(async () => "allow");
  const prepared = chat.prepareInvocation({ input: { command: "rm -rf /" } });
  assert.ok(prepared.confirmationMessages);
  const res: any = chat.invoke({ input: { command: "rm -rf /" } } as any);
  assert.equal(res.content[0].value, "skip");
});

test("calls of a request share its chat token while any of them runs", () => {
  const calls = new ActiveCalls();
  const a = calls.enter("r1", "t1");
  const b = calls.enter("r1", "t1");
  a.dispose();
  assert.equal(calls.token("r1"), "t1");
  b.dispose();
  assert.equal(calls.token("r1"), undefined);
  calls.enter("", "t").dispose();
  calls.enter("r2", undefined);
  assert.equal(calls.token("r2"), undefined, "a call from outside a chat has no chat to ask in");
});

function toolCtx(): ToolContext {
  return { ids: new RequestIds(), calls: new ActiveCalls(), requests: new RequestLog(), titles: new Map() };
}

test("prepareInvocation never asks VS Code to confirm a Tether call, and says when it will wait", async () => {
  const daemon = new StubDaemon();
  const tool = new TetherTool(daemon.asDaemon(), "shell", toolCtx(), logChannel());
  const token = new CancellationTokenSource().token as any;
  daemon.answer = () => ({ title: "Run: touch a", message: "Running: touch a", needsApproval: true, approval: shell });
  assert.deepEqual(await tool.prepareInvocation({ input: { command: "touch a" } } as any, token), {
    invocationMessage: "Running: touch a: waiting for your approval",
  });
  daemon.answer = () => ({ title: "Run: ls", message: "Running: ls", needsApproval: false });
  assert.deepEqual(await tool.prepareInvocation({ input: { command: "ls" } } as any, token), {
    invocationMessage: "Running: ls",
  });
  const edit: ApprovalRequestParams = { ...shell, kind: "edit", title: "Edit a.go", command: undefined };
  daemon.answer = () => ({
    title: "Edit a.go",
    message: "Making 2 edits in a.go",
    needsApproval: true,
    approval: edit,
  });
  assert.deepEqual(await tool.prepareInvocation({ input: { path: "a.go" } } as any, token), {
    invocationMessage: "Making 2 edits in a.go: waiting for your review",
  });
  assert.equal(
    waitingMessage("Reading /etc/hosts", { ...shell, kind: "outside" }),
    "Reading /etc/hosts: waiting for your approval",
  );
});

test("while a call runs, the daemon's approvals of its request go to its chat", async () => {
  const daemon = new StubDaemon();
  const ctx = toolCtx();
  const tool = new TetherTool(daemon.asDaemon(), "shell", ctx, logChannel());
  const chatToken = { sessionResource: "s" };
  let during: unknown;
  daemon.answer = (_m, params) => {
    during = ctx.calls.token(params.requestId);
    return { content: "exit code 0", isError: false };
  };
  await tool.invoke(
    { input: { command: "touch a" }, toolInvocationToken: chatToken } as any,
    new CancellationTokenSource().token,
  );
  assert.equal(during, chatToken);
  const requestId = daemon.requests[0].params.requestId;
  assert.equal(ctx.calls.token(requestId), undefined, "not after it ends");
});

test("each request's calls and the lines their diffs changed are kept for the checkpoints browser", async () => {
  const daemon = new StubDaemon();
  const ctx = toolCtx();
  const tool = new TetherTool(daemon.asDaemon(), "multi_edit", ctx, logChannel());
  const token = new CancellationTokenSource().token as any;
  daemon.answer = (method) =>
    method === "tools/prepare"
      ? { title: "Edit g.txt", message: "Making 2 edits in g.txt", needsApproval: false }
      : {
          content: "Edited g.txt",
          isError: false,
          diff: "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,3 @@\n-a\n+A\n+B\n c\n",
        };
  await tool.prepareInvocation({ input: { path: "g.txt" } }, token);
  await tool.invoke({ input: { path: "g.txt" }, toolInvocationToken: {} } as any, token);
  const requestId = daemon.requests.find((r) => r.method === "tools/call")!.params.requestId;
  const e = ctx.requests.get(requestId)!;
  assert.deepEqual(e.calls, ["Making 2 edits in g.txt"]);
  assert.deepEqual(e.files, { "g.txt": { added: 2, removed: 1 } });
  assert.equal(callKey("a", { x: 1 }), callKey("a", { x: 1 }));
});

test("a command with network access, or outside the sandbox, says so; outside, no Always is offered", () => {
  const net = confirmationMessages(
    {
      ...shell,
      command: "npm ci",
      title: "Install the dependencies (run npm ci with network access): npm ci",
      network: true,
      sandbox: true,
      description: "Install the dependencies",
      alwaysScope: "run npm ci with network access without asking in this project",
    },
    "c8",
  );
  assert.equal(net.title, "Tether: run this command with network access?");
  const netMd = (net.message as unknown as MarkdownString).value;
  assert.match(netMd, /Install the dependencies/);
  assert.match(netMd, /\[\\\[ Always allow npm ci with network access \\\]\]\(command:tether.confirmAnswer/);
  const out = confirmationMessages(
    {
      ...shell,
      command: "docker ps",
      title: "Run docker ps outside the sandbox: docker ps",
      sandbox: false,
      alwaysScope: "",
    },
    "c9",
  );
  assert.equal(out.title, "Tether: run this command outside the sandbox?");
  const outMd = (out.message as unknown as MarkdownString).value;
  assert.match(outMd, /all of your rights/);
  assert.doesNotMatch(outMd, /Always/, "no Always for a command outside the sandbox");
  const web = confirmationMessages(
    {
      ...shell,
      command: "curl x.test",
      network: true,
      sandbox: true,
      untrusted: ["https://a.test/page"],
      alwaysScope: "",
    },
    "c10",
  );
  assert.match(
    (web.message as unknown as MarkdownString).value.replace(/\\/g, ""),
    /read content from outside first \(https:\/\/a\.test\/page\), so this is asked every time/,
  );
});
