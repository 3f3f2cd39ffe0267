// Integration: the real daemon binary, built from this repository, driven
// through the extension's own client code (Daemon, TetherTool, Approvals,
// the diagnostics feeder, ask, the plan view) with the fake vscode module
// standing in for the editor. Each test plays a user: it answers the
// review, the quick pick or the notification the daemon's request brings up.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, afterEach, before, test as nodeTest } from "node:test";

import { Approvals } from "../../src/approval";
import { registerAsk } from "../../src/ask";
import { Daemon } from "../../src/daemon";
import { DiagnosticsFeeder } from "../../src/diagnostics";
import { InfoDocuments } from "../../src/infoDocuments";
import { PlanView } from "../../src/plan";
import { permissionsList } from "../../src/protocol";
import { RequestIds } from "../../src/requestIds";
import { newToolContext, registerTools } from "../../src/tools";
import { reviewPermissions } from "../../src/permissionCommands";
import { reviewStaged } from "../../src/stagedCommands";
import { showCheckpoints, undo } from "../../src/undoCommands";
import {
  CancellationTokenSource,
  Diagnostic,
  DiagnosticSeverity,
  LanguageModelTextPart,
  Range,
  Uri,
  fake,
} from "../fake/vscode";
import { logChannel, until } from "../stubDaemon";

/** Integration tests get a generous limit, so a hang fails instead of stalling CI. */
function test(name: string, fn: (t: any) => Promise<void>): void {
  nodeTest(name, { timeout: 60_000 }, fn);
}

function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, "go.mod"))) {
    const up = path.dirname(dir);
    if (up === dir) {
      throw new Error("no go.mod above the tests");
    }
    dir = up;
  }
  return dir;
}

let tmp: string;
let ws: string;
let daemon: Daemon;
/** The daemon once before() made it; unset if before() failed first. */
let made: Daemon | undefined;
let approvals: Approvals;
let plan: PlanView;
let feeder: DiagnosticsFeeder;
let docs: InfoDocuments;
const log = logChannel();

before(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "tether-it-"));
  ws = path.join(tmp, "ws");
  mkdirSync(ws);
  const binary = path.join(tmp, process.platform === "win32" ? "tether.exe" : "tether");
  execFileSync("go", ["build", "-o", binary, "./cmd/tether"], { cwd: repoRoot(), stdio: "inherit" });
  // The daemon keeps undo, logs and saved rules under XDG folders: here, not
  // in $HOME. (Set after the build: Go's build cache lives under XDG_CACHE_HOME.)
  for (const v of ["XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"]) {
    process.env[v] = path.join(tmp, v.toLowerCase());
  }

  fake.reset();
  fake.config["tether.path"] = binary;
  fake.config["tether.logLevel"] = "debug";
  // The shell tests here are about the question asked before a command
  // runs. At the sandbox's full level a command without network is not
  // asked: what it wrote is reviewed after it (the daemon's Go tests and
  // the e2e's capture scenario cover that), so these run at the Landlock
  // level, where commands ask first.
  fake.config["tether.shell.sandbox"] = "landlock";
  fake.folders = [{ uri: Uri.file(ws), name: "ws", index: 0 }];
  daemon = made = new Daemon({ extensionPath: tmp, clientVersion: "it", log, stopStepMs: 3000 });
  approvals = new Approvals(daemon, log);
  registerAsk(daemon);
  plan = new PlanView(daemon);
  feeder = new DiagnosticsFeeder(daemon);
  docs = new InfoDocuments();
  const pkg = JSON.parse(readFileSync(path.join(repoRoot(), "package.json"), "utf8"));
  registerTools(
    daemon,
    pkg.contributes.languageModelTools.map((t: { name: string }) => t.name),
    log,
    { ...newToolContext(approvals.chat.calls), ids: new RequestIds() },
    approvals.chat,
  );
});

after(async () => {
  const d = made;
  if (!d) {
    return; // before() failed; its error is the one to read
  }
  const pid = daemon.pid;
  approvals.dispose();
  feeder.dispose();
  plan.dispose();
  await daemon.dispose();
  if (pid !== undefined) {
    assert.throws(() => process.kill(pid, 0), "the daemon process is gone after dispose");
  }
  rmSync(tmp, { recursive: true, force: true });
});

/** Calls a tool the way VS Code's chat does, and returns the text the model would see. */
async function call(
  tool: string,
  input: object,
  turn?: object,
  token = new CancellationTokenSource().token,
): Promise<string> {
  const res = await fake.tool(`tether_${tool}`).invoke({ input, toolInvocationToken: fake.turnToken(turn) }, token);
  return fake.text(res);
}

function offered(name: string): boolean {
  return (daemon.initializeResult?.tools ?? []).some((t) => t.name === name);
}

const seen = new Set<unknown>();

/** Waits for the next edit approval to open in the review UI. */
async function nextReview() {
  await until(() => approvals.reviews.some((r) => !seen.has(r)), "an approval/request");
  const review = approvals.reviews.find((r) => !seen.has(r))!;
  seen.add(review);
  return review;
}

// A test that fails with an approval open must not leave the next one waiting behind it.
afterEach(() => approvals.skipAll());

test("initialize: the daemon starts, says who it is and lists its tools", async () => {
  await daemon.ready();
  assert.equal(daemon.state, "ready");
  assert.ok(daemon.initializeResult?.serverInfo.name);
  assert.ok(offered("read_file"));
});

test("tools/call read_file returns numbered lines", async () => {
  writeFileSync(path.join(ws, "hello.txt"), "hello\nworld\n");
  const out = await call("read_file", { path: "hello.txt" });
  assert.match(out, /1\thello\n2\tworld/);
});

test("a tool's own error comes back as text for the model", async () => {
  const out = await call("read_file", { path: "no-such-file.txt" });
  assert.match(out, /no-such-file\.txt/);
});

test("tools/prepare gives the progress message", async () => {
  const t = fake.tool("tether_read_file");
  const prepared = await t.prepareInvocation?.({ input: { path: "hello.txt" } }, new CancellationTokenSource().token);
  const msg = prepared?.invocationMessage;
  assert.ok(typeof msg === "string" ? msg.length > 0 : msg?.value.length);
  assert.equal(prepared?.confirmationMessages, undefined);
});

// Lines 2 and 15 of 20 changed: far enough apart to make two hunks.
const twentyLines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join("");
const twoChanges = twentyLines.replace("line 2\n", "LINE TWO\n").replace("line 15\n", "LINE FIFTEEN\n");

/** Starts a write_file that needs approval; returns the pending call and its review. */
async function proposeWrite(file: string) {
  writeFileSync(path.join(ws, file), twentyLines);
  await call("read_file", { path: file });
  const result = call("write_file", { path: file, content: twoChanges }, {});
  const review = await nextReview();
  return { result, review, params: review.params };
}

test("edit approval: the request carries the file, both texts and the diff", async () => {
  const { result, review, params } = await proposeWrite("shape.txt");
  assert.equal(params.kind, "edit");
  assert.equal(params.tool, "write_file");
  assert.equal(params.path, path.join(ws, "shape.txt"));
  assert.equal(params.original, twentyLines);
  assert.equal(params.proposed, twoChanges);
  assert.ok(params.requestId, "names the chat request");
  assert.ok(params.alwaysScope);
  assert.ok(
    fake.executed.some((e) => e.command === "vscode.diff"),
    "the diff editor opened",
  );
  approvals.answer("no", review.proposedUri);
  assert.match(await result, /declined/);
  assert.equal(readFileSync(path.join(ws, "shape.txt"), "utf8"), twentyLines, "declined: nothing written");
});

test("edit approval: a dropped hunk is not written", async () => {
  const { result, review, params } = await proposeWrite("hunks.txt");
  assert.equal(params.hunks?.length, 2, "the request offers the change's two hunks");
  await approvals.toggleHunk(review.proposedUri.toString(), params.hunks[0].id);
  approvals.answer("yes", review.proposedUri);
  const out = await result;
  assert.equal(
    readFileSync(path.join(ws, "hunks.txt"), "utf8"),
    twentyLines.replace("line 15\n", "LINE FIFTEEN\n"),
    "only the kept hunk was written",
  );
  assert.match(out, /dropped/, "the model is told what the user dropped");
});

test("edit approval: text the user typed into the proposal is what gets written", async () => {
  const { result, review } = await proposeWrite("edited.txt");
  const doc = review.document()!;
  const mine = twoChanges.replace("line 5\n", "the user's line 5\n");
  (doc as any).type(mine);
  approvals.answer("yes", review.proposedUri);
  const out = await result;
  assert.equal(readFileSync(path.join(ws, "edited.txt"), "utf8"), mine);
  assert.match(out, /edited/i, "the model is told the user changed the proposal");
});

/** Writes file through write_file, approved with answer, and returns the tool's text. */
async function approvedWrite(
  file: string,
  content: string,
  answer: "yes" | "always" = "yes",
  turn: object = {},
): Promise<string> {
  await call("read_file", { path: file });
  const pending = call("write_file", { path: file, content }, turn);
  approvals.answer(answer, (await nextReview()).proposedUri);
  return pending;
}

test("the calls of one chat session are one request: one undo puts them all back", async () => {
  for (const f of ["turn-a.txt", "turn-b.txt", "turn-c.txt"]) {
    writeFileSync(path.join(ws, f), twentyLines);
  }
  // VS Code rebuilds the token for every call; its session stays.
  const chat1 = () => ({ sessionId: "chat-turns-1" });
  await approvedWrite("turn-a.txt", twoChanges, "yes", chat1());
  await approvedWrite("turn-b.txt", twoChanges, "yes", chat1());
  await approvedWrite("turn-c.txt", twoChanges, "yes", { sessionId: "chat-turns-2" });
  fake.onMessage = () => undefined;
  await undo(daemon, docs);
  assert.match(fake.messages.at(-1)!.text, /^Tether restored 1 file\.$/, "the other session's request is its own");
  assert.equal(readFileSync(path.join(ws, "turn-c.txt"), "utf8"), twentyLines);
  assert.equal(readFileSync(path.join(ws, "turn-a.txt"), "utf8"), twoChanges);
  await undo(daemon, docs);
  assert.match(fake.messages.at(-1)!.text, /^Tether restored 2 files\.$/);
  for (const f of ["turn-a.txt", "turn-b.txt"]) {
    assert.equal(readFileSync(path.join(ws, f), "utf8"), twentyLines, `${f} restored with its turn`);
  }
});

test("undo puts the last request back, and says what it restored", async () => {
  writeFileSync(path.join(ws, "undo.txt"), twentyLines);
  await approvedWrite("undo.txt", twoChanges);
  assert.equal(readFileSync(path.join(ws, "undo.txt"), "utf8"), twoChanges);
  fake.onMessage = () => "Show details";
  const shown = fake.shownDocuments.length;
  await undo(daemon, docs);
  assert.equal(readFileSync(path.join(ws, "undo.txt"), "utf8"), twentyLines);
  assert.match(fake.messages.at(-1)!.text, /^Tether restored 1 file\.$/);
  assert.match(fake.shownDocuments[shown].getText(), /## Restored\n\n- .*undo\.txt/);
});

test("undo leaves a file someone changed since, and says so", async () => {
  writeFileSync(path.join(ws, "conflict.txt"), twentyLines);
  await approvedWrite("conflict.txt", twoChanges);
  writeFileSync(path.join(ws, "conflict.txt"), "the user's own text\n");
  fake.onMessage = () => undefined;
  await undo(daemon, docs);
  assert.equal(readFileSync(path.join(ws, "conflict.txt"), "utf8"), "the user's own text\n");
  const m = fake.messages.at(-1)!;
  assert.equal(m.kind, "warning");
  assert.match(m.text, /1 file changed since Tether wrote it and was left alone/);
});

test("checkpoints: pick one, see its diff, undo it from there", async () => {
  writeFileSync(path.join(ws, "cp.txt"), twentyLines);
  await approvedWrite("cp.txt", twoChanges);
  fake.onShowQuickPick = (items) => items.find((i: { detail?: string }) => i.detail?.includes("cp.txt"));
  fake.onMessage = (m) => (m.items.includes("Undo this request") ? "Undo this request" : undefined);
  const shown = fake.shownDocuments.length;
  await showCheckpoints(daemon, docs);
  assert.match(fake.shownDocuments[shown].getText(), /LINE FIFTEEN/, "the checkpoint's diff was shown");
  assert.equal(readFileSync(path.join(ws, "cp.txt"), "utf8"), twentyLines, "and undone");
});

test("permissions: an “always” answer is listed, then forgotten", async () => {
  writeFileSync(path.join(ws, "always.txt"), twentyLines);
  await approvedWrite("always.txt", twoChanges, "always");
  let listed: string[] = [];
  fake.onShowQuickPick = (items) => {
    listed = items.map((i) => i.label);
    return items.find((i) => "action" in i && i.action === "reset");
  };
  fake.onMessage = (m) => (m.modal ? "Forget All" : undefined);
  await reviewPermissions(daemon, docs);
  assert.ok(
    listed.some((l) => /always .*change files/i.test(l)),
    `listed: ${listed.join(" | ")}`,
  );
  assert.match(fake.messages.at(-1)!.text, /Tether forgot 1 saved answer\./);
  const after = await daemon.request(permissionsList, {});
  assert.deepEqual(after.rules, []);
});

test("dryRun: a change is staged, reviewed, then applied", async () => {
  fake.config["tether.permissionMode"] = "dryRun";
  try {
    await daemon.restart();
    writeFileSync(path.join(ws, "staged.txt"), twentyLines);
    await call("read_file", { path: "staged.txt" });
    await call("write_file", { path: "staged.txt", content: twoChanges }, {});
    assert.equal(readFileSync(path.join(ws, "staged.txt"), "utf8"), twentyLines, "staged, not written");
    fake.onShowQuickPick = (items) => items.find((i: { detail?: string }) => i.detail?.includes("staged.txt"));
    fake.onMessage = (m) => (m.items.includes("Apply") ? "Apply" : undefined);
    await reviewStaged(daemon, docs);
    assert.equal(readFileSync(path.join(ws, "staged.txt"), "utf8"), twoChanges, "applied");
    assert.match(fake.messages.at(-1)!.text, /Tether applied 1 staged change\./);
  } finally {
    delete fake.config["tether.permissionMode"];
    await daemon.restart();
  }
});

test("diagnostics published by the editor come back from problems", async () => {
  const file = Uri.file(path.join(ws, "hello.txt"));
  const d = new Diagnostic(new Range(1, 0, 1, 5), "world is not defined", DiagnosticSeverity.Error);
  d.source = "it-lint";
  fake.setDiagnostics(file, [d]);
  feeder.flush();
  assert.ok(offered("problems"), "the daemon offers problems to an editor that publishes diagnostics");
  const out = await call("problems", {});
  assert.match(out, /hello\.txt:2:1: error: world is not defined/);
});

test("ask_user: the quick pick's answer goes back to the model", async () => {
  fake.onQuickPick = (qp) =>
    qp.acceptWith(
      "",
      qp.items.find((i: { label: string }) => i.label === "blue"),
    );
  const out = await call("ask_user", { question: "Which colour?", options: ["red", "blue"] });
  assert.match(out, /blue/);
  assert.equal(fake.quickPicks.at(-1)!.title, "Which colour?", "the question stays in view as the title");
});

/**
 * Plays the user answering the approval tool's confirmation in the chat:
 * VS Code asks the tool what to show, the user picks an answer (a link of
 * Tether's, Allow, or Skip), and VS Code runs the tool unless skipped.
 */
function answerInChat(answer: "yes" | "always" | "skip" | "no") {
  const asked: any[] = [];
  fake.onInvokeTool = async (name, options) => {
    const tool = fake.tool(name);
    const token = new CancellationTokenSource().token;
    const confirm = (await tool.prepareInvocation?.({ input: options.input }, token))?.confirmationMessages;
    const message = typeof confirm?.message === "string" ? confirm.message : confirm?.message.value;
    asked.push({ name, input: options.input, title: confirm?.title, message });
    if (answer === "skip") {
      return {
        content: [
          new LanguageModelTextPart("The user chose to skip the tool call, they want to proceed without running it"),
        ],
      };
    }
    if (answer === "always" || answer === "no") {
      const m = [...String(message).matchAll(/confirmAnswer\?([^ )]+)/g)].map((x) =>
        JSON.parse(decodeURIComponent(x[1])),
      );
      const link = m.find((x) => x[1] === answer);
      assert.ok(link, `the confirmation links "${answer}"`);
      // What the link's command does (commands are not registered here).
      assert.equal(await approvals.chat.choose(link![0], link![1]), true);
    }
    const res = await tool.invoke({ input: options.input, toolInvocationToken: options.toolInvocationToken }, token);
    assert.ok(res, `${name} gives a result`);
    return res;
  };
  return asked;
}

test("a shell command is asked once, in the chat, and always saves the daemon's rule", async (t) => {
  if (!offered("shell")) {
    t.skip("this daemon has no shell tool");
    return;
  }
  const turn = { sessionResource: "chat-shell" };
  let asked = answerInChat("always");
  const out = await call("shell", { command: "touch made.txt" }, turn);
  assert.match(out, /exit code 0/);
  assert.ok(existsSync(path.join(ws, "made.txt")));
  assert.equal(asked.length, 1, "asked once");
  assert.deepEqual(asked[0].input, { command: "touch made.txt" });
  assert.equal(asked[0].title, "Tether: run this command?");
  assert.match(asked[0].message, /Always allow touch/);

  asked = answerInChat("yes");
  assert.match(await call("shell", { command: "touch second.txt" }, turn), /exit code 0/);
  assert.equal(asked.length, 0, "touch is always allowed now: nothing is asked");

  answerInChat("no");
  const declined = await call("shell", { command: "rm made.txt" }, turn);
  assert.match(declined, /declined/);
  assert.ok(existsSync(path.join(ws, "made.txt")), "not run");

  answerInChat("skip");
  const skipped = await call("shell", { command: "rm second.txt" }, turn);
  assert.match(skipped, /skipped/);
  assert.ok(existsSync(path.join(ws, "second.txt")), "not run");
});

test("a shell command from outside a chat is asked in Tether's prompt", async (t) => {
  if (!offered("shell")) {
    t.skip("this daemon has no shell tool");
    return;
  }
  fake.onInvokeTool = async () => assert.fail("no chat to ask in");
  fake.onQuickPick = (qp) =>
    qp.acceptWith(
      "",
      qp.items.find((i: { label: string }) => i.label.includes("Yes")),
    );
  assert.match(await call("shell", { command: "mkdir -p outside-chat" }), /exit code 0/);
  assert.match(fake.quickPicks.at(-1)!.title!, /mkdir -p outside-chat/);
});

test("cancelling a tool call reaches the daemon, and the daemon closes the question", async () => {
  fake.onQuickPick = () => undefined; // the user does not answer
  const cts = new CancellationTokenSource();
  const asked = fake.quickPicks.length;
  const pending = call("ask_user", { question: "Wait?", options: ["yes", "no"] }, undefined, cts.token);
  await until(() => fake.quickPicks.length > asked, "the question");
  cts.cancel();
  const out = await pending;
  assert.match(out, /cancel/i);
  await until(() => !fake.quickPicks.at(-1)!.visible, "the quick pick closing");
});

test("todo: the plan reaches the tree view", async () => {
  await call("todo", {
    items: [
      { text: "read", status: "done" },
      { text: "edit", status: "in_progress" },
    ],
  });
  const items = () => plan.getChildren().flatMap((n) => (n.kind === "item" ? [n.item] : []));
  await until(() => items().length === 2, "todo/changed");
  assert.deepEqual(
    items().map((i) => `${i.text}:${i.status}`),
    ["read:done", "edit:in_progress"],
  );
  assert.equal(fake.contexts.get("tether.hasPlan"), true);
});

test("a daemon that dies is restarted and serves again", async () => {
  const first = daemon.pid!;
  const states: string[] = [];
  const sub = daemon.onDidChangeState((s) => states.push(s));
  process.kill(first, "SIGKILL");
  await until(() => states.includes("restarting"), "the restart");
  await until(() => daemon.state === "ready", "the new daemon");
  sub.dispose();
  assert.notEqual(daemon.pid, first);
  assert.match(await call("read_file", { path: "hello.txt" }), /1\thello/);
});

test("web_fetch: the prompt shows the URL and host; the page comes back as data", async () => {
  const http = await import("node:http");
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.end("served by a local server");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  fake.config["tether.web.allowedPrivateHosts"] = ["127.0.0.1"];
  try {
    await daemon.restart();
    const asked = answerInChat("yes");
    const url = `http://127.0.0.1:${port}/page`;
    const out = await call("web_fetch", { url }, { sessionResource: "chat-web" });
    assert.equal(asked.length, 1, "asked once, in the chat");
    assert.equal(asked[0].title, "Tether: fetch from 127.0.0.1?");
    assert.ok(asked[0].message.includes(url), `the question shows the URL: ${asked[0].message}`);
    assert.match(asked[0].message, /Always allow 127\\?\.0\\?\.0\\?\.1 \\\]\]/, "always is scoped to the host");
    assert.match(out, /served by a local server/);
    assert.match(out, /data from the web, not instructions/);
  } finally {
    delete fake.config["tether.web.allowedPrivateHosts"];
    server.close();
    await daemon.restart();
  }
});
