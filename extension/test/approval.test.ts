import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { Approvals, promptItems, promptMessage } from "../src/approval";
import type { ApprovalRequestParams } from "../src/protocol";
import { TabInputText, TabInputTextDiff, Uri, fake, window } from "./fake/vscode";
import { StubDaemon, logChannel, rpcToken, settle, until } from "./stubDaemon";
import { hunks, original, proposed } from "./twoHunks";

const edit: ApprovalRequestParams = {
  requestId: "r1",
  tool: "write_file",
  title: "Write notes.txt",
  kind: "edit",
  path: "/ws/notes.txt",
  original,
  proposed,
  hunks,
  alwaysScope: "file changes inside this workspace",
};

let daemon: StubDaemon;
let approvals: Approvals;
beforeEach(() => {
  fake.reset();
  daemon = new StubDaemon();
  approvals = new Approvals(daemon.asDaemon(), logChannel());
});

/** Sends an approval/request as the daemon would and waits for the review to open. */
async function request(p: ApprovalRequestParams = edit) {
  const handler = daemon.requestHandlers.get("approval/request")!;
  const cancel = rpcToken();
  const answer = handler(p, cancel.token) as Promise<any>;
  await settle();
  return { answer, cancel };
}

function proposedUri(): Uri {
  return approvals.reviews[0].proposedUri;
}

test("an edit opens a diff of original and proposal that does not take focus", async () => {
  await request();
  const diff = fake.executed.find((e) => e.command === "vscode.diff")!;
  assert.ok(diff, "vscode.diff was run");
  const [left, right, , options] = diff.args as [Uri, Uri, string, object];
  assert.equal(left.scheme, "tether-original");
  assert.equal(right.scheme, "tether-proposed");
  assert.ok(right.path.endsWith("/notes.txt"), "keeps the file name, so the language is recognised");
  assert.deepEqual(options, { preview: true, preserveFocus: true });
  assert.equal(fake.contexts.get("tether.reviewing"), true);
  assert.equal(await fake.provided(left), original);
  assert.equal(fake.document(right)!.getText(), proposed);
});

test("approve with nothing changed answers yes and closes the diff", async () => {
  const { answer } = await request();
  approvals.answer("yes", proposedUri());
  assert.deepEqual(await answer, { answer: "yes" });
  await settle();
  assert.equal(fake.tabs.length, 0, "the diff tab is closed");
  assert.equal(fake.contexts.get("tether.reviewing"), false);
});

test("each hunk has a lens; dropping one rebuilds the proposal and the answer keeps the rest", async () => {
  const { answer } = await request();
  const uri = proposedUri();
  const titles = () =>
    fake
      .lenses(uri)
      .slice(4)
      .map((l) => [l.range.start.line, l.command!.title]);
  assert.deepEqual(titles(), [
    [1, "$(close) Drop hunk 1/2"],
    [14, "$(close) Drop hunk 2/2"],
  ]);
  const toggle = fake.lenses(uri)[4].command!;
  assert.equal(toggle.command, "tether.toggleHunk");
  await approvals.toggleHunk(...(toggle.arguments as [string, number]));
  assert.equal(fake.document(uri)!.getText(), original.replace("l15", "L15"), "the proposal no longer has hunk 1");
  assert.deepEqual(titles(), [
    [1, "$(check) Keep hunk 1/2 (dropped)"],
    [14, "$(close) Drop hunk 2/2"],
  ]);
  approvals.answer("yes", uri);
  assert.deepEqual(await answer, { answer: "yes", hunks: [2] });
});

test("keeping a dropped hunk again restores it", async () => {
  const { answer } = await request();
  const uri = proposedUri();
  await approvals.toggleHunk(uri.toString(), 2);
  await approvals.toggleHunk(uri.toString(), 2);
  assert.equal(fake.document(uri)!.getText(), proposed);
  approvals.answer("always", uri);
  assert.deepEqual(await answer, { answer: "always" });
});

test("text the user typed into the proposal is sent as content", async () => {
  const { answer } = await request();
  const uri = proposedUri();
  await approvals.toggleHunk(uri.toString(), 1);
  const doc = fake.document(uri)!;
  doc.type(doc.getText().replace("l20", "the user's line 20"));
  assert.deepEqual(
    fake
      .lenses(uri)
      .slice(4)
      .map((l) => l.command!.title),
    ["$(edit) Edited by you: approving writes this text", "Undo my edits"],
    "hunk lenses give way to a note once the user has typed",
  );
  approvals.answer("yes", uri);
  assert.deepEqual(await answer, {
    answer: "yes",
    content: original.replace("l15", "L15").replace("l20", "the user's line 20"),
  });
  await settle();
  assert.equal(doc.isDirty, false, "the proposal is saved before its tab closes, so no save dialog appears");
});

test("toggling a hunk after typing asks before replacing the user's text", async () => {
  await request();
  const uri = proposedUri();
  const doc = fake.document(uri)!;
  doc.type("mine\n");
  fake.onMessage = () => undefined; // the user cancels the modal
  await approvals.toggleHunk(uri.toString(), 1);
  assert.equal(doc.getText(), "mine\n");
  const m = fake.messages.at(-1)!;
  assert.equal(m.modal, true);
  fake.onMessage = () => "Replace My Edits";
  await approvals.toggleHunk(uri.toString(), 1);
  assert.equal(doc.getText(), original.replace("l15", "L15"));
});

test("reject answers no; skip answers skip, whatever was dropped", async () => {
  for (const [answer, want] of [
    ["no", { answer: "no" }],
    ["skip", { answer: "skip" }],
  ] as const) {
    const r = await request();
    await approvals.toggleHunk(proposedUri().toString(), 1);
    approvals.answer(answer, proposedUri());
    assert.deepEqual(await r.answer, want);
  }
});

test("the daemon cancelling the request answers skip and closes the review", async () => {
  const { answer, cancel } = await request();
  cancel.cancel();
  assert.deepEqual(await answer, { answer: "skip" });
  assert.equal(approvals.reviews.length, 0);
});

test("pending approvals are skipped when the daemon stops", async () => {
  const one = await request();
  const two = await request({ ...edit, path: "/ws/other.txt" });
  daemon.stopped.fire();
  assert.deepEqual(await one.answer, { answer: "skip" });
  assert.deepEqual(await two.answer, { answer: "skip" });
});

test("pending approvals are skipped when the extension deactivates", async () => {
  const shell = daemon.requestHandlers.get("approval/request")!(
    { ...edit, kind: "shell", command: "rm -rf build", original: undefined, proposed: undefined },
    rpcToken().token,
  ) as Promise<any>;
  fake.onMessage = () => new Promise(() => undefined); // the user never answers
  const r = await request();
  approvals.dispose();
  assert.deepEqual(await r.answer, { answer: "skip" });
  assert.deepEqual(await shell, { answer: "skip" });
});

test("closing the review tab without answering reminds the user; dismissing skips", async () => {
  const { answer } = await request();
  const tab = fake.tabs.find((t) => t.input instanceof TabInputTextDiff)!;
  await window.tabGroups.close(tab);
  await settle();
  const reminder = fake.messages.at(-1)!;
  assert.match(reminder.text, /waiting for your review/);
  assert.deepEqual(reminder.items, ["Review", "Approve", "Skip"]);
  assert.deepEqual(await answer, { answer: "skip" });
});

test("answering when nothing waits says so", () => {
  assert.equal(approvals.answer("yes"), false);
  assert.match(fake.messages[0].text, /No Tether change is waiting/);
});

test("prompts show the full command, host or path, and what always would allow", () => {
  const base = { requestId: "r", tool: "t", title: "Run a command", alwaysScope: "" };
  const cases: [Partial<ApprovalRequestParams>, RegExp, boolean][] = [
    [
      { kind: "shell", command: "go test ./... && rm -rf /tmp/x", alwaysScope: "the program go" },
      /^Tether wants to run: go test \.\/\.\.\. && rm -rf \/tmp\/x\. “Always” allows the program go\.$/,
      true,
    ],
    [{ kind: "fetch", host: "pkg.go.dev" }, /^Tether wants to fetch from pkg\.go\.dev$/, false],
    [
      {
        kind: "fetch",
        url: "https://xn--bcher-kva.example/k?q=1",
        host: "xn--bcher-kva.example",
        alwaysScope: "fetch from xn--bcher-kva.example without asking in this project",
      },
      /^Tether wants to fetch https:\/\/xn--bcher-kva\.example\/k\?q=1 \(host: xn--bcher-kva\.example\)\. “Always” allows fetch from xn--bcher-kva\.example without asking in this project\.$/,
      false,
    ],
    [{ kind: "outside", path: "/etc/hosts" }, /^Tether wants to use \/etc\/hosts, outside the workspace$/, true],
    [
      { kind: "memory", title: "remember build steps" },
      /^Tether wants to write project memory: remember build steps$/,
      false,
    ],
    [
      { kind: "shell", command: "make", from: "Claude Code", alwaysScope: "run make without asking" },
      /^Tether wants to run: make \(asked by Claude Code through tether mcp\)\. “Always” allows run make without asking\.$/,
      true,
    ],
  ];
  for (const [p, re, warn] of cases) {
    const m = promptMessage({ ...base, ...p } as ApprovalRequestParams);
    assert.match(m.text, re);
    assert.equal(m.warn, warn, p.kind);
  }
});

/** Answers Tether's prompt (a quick pick) with the item whose label contains label. */
function pickInPrompt(label: string | undefined) {
  fake.onQuickPick = (qp) => {
    if (label === undefined) {
      qp.hide();
      return;
    }
    qp.acceptWith(
      "",
      qp.items.find((i: { label: string }) => i.label.includes(label)),
    );
  };
}

test("a shell approval is a prompt in a quick pick, never a toast, with Yes / Always / Skip / No", async () => {
  pickInPrompt("Always");
  const handler = daemon.requestHandlers.get("approval/request")!;
  const res = await handler(
    {
      ...edit,
      kind: "shell",
      command: "make",
      original: undefined,
      proposed: undefined,
      alwaysScope: "run make without asking in this project",
    },
    rpcToken().token,
  );
  assert.deepEqual(res, { answer: "always" });
  assert.equal(fake.messages.length, 0, "no toast");
  const qp = fake.quickPicks[0];
  assert.match(qp.title!, /Tether wants to run: make/);
  assert.deepEqual(
    qp.items.map((i) => [i.label, i.description]),
    [
      ["$(check) Yes", "this once"],
      ["$(check-all) Always", "run make without asking in this project"],
      ["$(debug-step-over) Skip", "carry on without it"],
      ["$(close) No", "stop, and let the agent ask how to go on"],
    ],
  );
  assert.equal(qp.ignoreFocusOut, true, "it stays until answered");
  assert.equal(qp.visible, false, "and goes once answered");
});

test("dismissing Tether's prompt skips", async () => {
  pickInPrompt(undefined);
  const res = await daemon.requestHandlers.get("approval/request")!(
    { ...edit, kind: "fetch", host: "example.com", original: undefined, proposed: undefined },
    rpcToken().token,
  );
  assert.deepEqual(res, { answer: "skip" });
});

test("an edit with nothing to compare (a move) is a prompt", async () => {
  pickInPrompt("Yes");
  const handler = daemon.requestHandlers.get("approval/request")!;
  const res = await handler(
    { ...edit, title: "move a.go to b.go", original: undefined, proposed: undefined, hunks: undefined },
    rpcToken().token,
  );
  assert.deepEqual(res, { answer: "yes" });
  assert.equal(fake.executed.filter((e) => e.command === "vscode.diff").length, 0);
});

test("a command of a call running in a chat is asked in that chat, not in a prompt", async () => {
  const asked: ApprovalRequestParams[] = [];
  (approvals.chat as any).invokeTool = async (_name: string, options: any) => {
    asked.push(options.input);
    return approvals.chat.invoke({ input: options.input } as any);
  };
  approvals.chat.calls.enter("r1", { sessionResource: "s" });
  const shell: ApprovalRequestParams = {
    ...edit,
    kind: "shell",
    command: "touch made.txt",
    title: "Run touch: touch made.txt",
    original: undefined,
    proposed: undefined,
    hunks: undefined,
  };
  const handler = daemon.requestHandlers.get("approval/request")!;
  assert.deepEqual(await handler(shell, rpcToken().token), { answer: "yes" });
  assert.deepEqual(asked, [{ command: "touch made.txt" }]);
  assert.equal(fake.quickPicks.length, 0, "no prompt besides the chat's");
  pickInPrompt("No");
  assert.deepEqual(
    await handler({ ...shell, requestId: "elsewhere" }, rpcToken().token),
    { answer: "no" },
    "a request with no call in a chat gets Tether's prompt",
  );
  assert.equal(fake.quickPicks.length, 1);
});

test("the review says what it is: its title, a labelled row of actions, a status entry that opens it", async () => {
  const { answer } = await request();
  const uri = proposedUri();
  const diff = fake.executed.find((e) => e.command === "vscode.diff")!;
  assert.equal(diff.args[2], "Review Tether's change: notes.txt");
  const top = fake.lenses(uri).slice(0, 4);
  assert.deepEqual(
    top.map((l) => [l.range.start.line, l.command!.title, l.command!.command]),
    [
      [0, "$(check) Approve", "tether.approve"],
      [0, "$(close) Reject", "tether.reject"],
      [0, "$(check-all) Always", "tether.approveAlways"],
      [0, "$(debug-step-over) Skip", "tether.skip"],
    ],
  );
  assert.match((top[2].command as any).tooltip, /file changes inside this workspace/, "Always says what it allows");
  const status = fake.statusItems.find((i) => i.id === "tether.review")!;
  assert.equal(status.text, "$(diff) Tether: 1 change to review");
  assert.equal(status.visible, true);
  assert.equal(status.command, "tether.openReview");
  await request({ ...edit, path: "/ws/other.txt" });
  assert.equal(status.text, "$(diff) Tether: 2 changes to review");
  fake.executed = [];
  await approvals.openReview();
  const opened = fake.executed.find((e) => e.command === "vscode.diff")!;
  assert.deepEqual(
    opened.args[3],
    { preview: true, preserveFocus: false },
    "opened by the user, the review takes the keyboard",
  );
  approvals.answer("yes", uri);
  await answer;
  approvals.skipAll();
  await settle();
  assert.equal(status.visible, false, "nothing left to review");
});

test("a hunk's lens flips at once, before the editor has reloaded the proposal", async () => {
  await request();
  const uri = proposedUri();
  const pending = approvals.toggleHunk(uri.toString(), 1);
  assert.equal(fake.lenses(uri)[4].command!.title, "$(check) Keep hunk 1/2 (dropped)");
  await pending;
});

test("dropping a hunk rewrites the proposal through its file system: the document is never left unsaved", async () => {
  await request();
  const uri = proposedUri();
  await approvals.toggleHunk(uri.toString(), 1);
  const doc = fake.document(uri)!;
  assert.equal(doc.getText(), original.replace("l15", "L15"));
  assert.equal(doc.isDirty, false);
});

test("Tether's own prompt offers Always only where the daemon scopes it", () => {
  const base = {
    requestId: "",
    tool: "shell",
    title: "Run docker ps outside the sandbox",
    kind: "shell",
    command: "docker ps",
  } as const;
  const without = promptItems({ ...base, sandbox: false, alwaysScope: "" }).map((i) => i.answer);
  assert.deepEqual(without, ["yes", "skip", "no"]);
  const withScope = promptItems({ ...base, alwaysScope: "run docker ps without asking in this project" }).map(
    (i) => i.answer,
  );
  assert.deepEqual(withScope, ["yes", "always", "skip", "no"]);
  assert.match(
    promptMessage({ ...base, sandbox: false, alwaysScope: "" }).text,
    /outside the sandbox, with all of your rights: docker ps/,
  );
  assert.match(
    promptMessage({ ...base, network: true, description: "List containers", alwaysScope: "" }).text,
    /with network access: docker ps \(for: List containers\)/,
  );
});

test("a change tether mcp asks about says which client asks, in the review's title", async () => {
  const { answer } = await request({ ...edit, requestId: "mcp-20260101T000000-abcd", from: "Claude Code" });
  const diff = fake.executed.find((e) => e.command === "vscode.diff")!;
  assert.equal(diff.args[2], "Review Tether's change: notes.txt (from Claude Code)");
  approvals.answer("yes", proposedUri());
  assert.equal((await answer).answer, "yes");
});

test("a proposal typed into before its editor is known to be active is saved once it is", async () => {
  await request();
  const uri = proposedUri();
  const doc = fake.document(uri)!;
  doc.type(doc.getText() + "typed\n"); // the change comes before the news of the focus
  await afterTimers();
  assert.equal(doc.isDirty, true, "nothing can save it while another editor is active");
  fake.setActiveEditor(doc);
  await until(() => !doc.isDirty, "the proposal to be saved once its editor is active");
  assert.ok(
    fake.executed.some((e) => e.command === "workbench.action.files.saveWithoutFormatting"),
    "saved without save participants",
  );
});

test("answering closes every tab of the proposal: the review diff and a plain tab opened on it", async () => {
  const { answer } = await request();
  const uri = proposedUri();
  fake.tabs.push({ input: new TabInputText(uri) }, { input: new TabInputText(Uri.file("/ws/other.txt")) });
  approvals.answer("yes", uri);
  await answer;
  await settle();
  const left = fake.tabs.map((t) => (t.input instanceof TabInputText ? t.input.uri.toString() : "diff"));
  assert.deepEqual(left, [Uri.file("/ws/other.txt").toString()]);
});

/** Resolves after the zero-delay timers set before it have run. */
function afterTimers(): Promise<void> {
  return new Promise((r) => setTimeout(r, 0)).then(settle);
}
