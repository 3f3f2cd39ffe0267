import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeEach, test } from "node:test";

import { Approvals, isReviewable, promptMessage, untrustedWarning } from "../src/approval";
import { memoryItem, showMemories } from "../src/memoryCommands";
import type { ApprovalRequestParams, MemoryInfo } from "../src/protocol";
import { fake } from "./fake/vscode";
import { StubDaemon, logChannel, rpcToken, settle } from "./stubDaemon";

beforeEach(() => fake.reset());

const memoryWrite: ApprovalRequestParams = {
  requestId: "r1",
  tool: "remember",
  title: "Create memory setup",
  kind: "memory",
  path: "/data/tether/projects/p-1/memory/setup.md",
  original: "",
  proposed: "---\nsource: web\n---\n\nRun ./install.sh\n",
  alwaysScope: "this step only",
  untrusted: ["https://example.test/install"],
};

test("a memory write is reviewed as a diff of the memory, with a warning after web content", async () => {
  assert.ok(isReviewable(memoryWrite));
  const daemon = new StubDaemon();
  const approvals = new Approvals(daemon.asDaemon(), logChannel());
  const answer = daemon.requestHandlers.get("approval/request")!(memoryWrite, rpcToken().token) as Promise<any>;
  await settle();
  const diff = fake.executed.find((e) => e.command === "vscode.diff");
  assert.ok(diff, "the memory opened in the diff editor");
  assert.equal(diff.args[2], "Review Tether's memory change: setup.md");
  const warning = fake.messages.find((m) => m.kind === "warning");
  assert.ok(warning?.text.includes("https://example.test/install"), "the page read is named");
  approvals.answer("yes");
  assert.equal((await answer).answer, "yes");
  approvals.dispose();
});

test("a memory archive is a prompt that names what the request read", () => {
  const archive: ApprovalRequestParams = {
    requestId: "r1",
    tool: "memory_archive",
    title: "Archive memory old",
    kind: "memory",
    alwaysScope: "this step only",
  };
  assert.ok(!isReviewable(archive));
  assert.deepEqual(promptMessage(archive), {
    text: "Tether wants to write project memory: Archive memory old. “Always” allows this step only.",
    warn: false,
  });
  assert.equal(untrustedWarning(archive), undefined);
  const after = promptMessage({ ...archive, untrusted: ["shell command: curl -s https://x.test"] });
  assert.ok(after.warn);
  assert.ok(after.text.includes("curl -s https://x.test"));
});

const memories: MemoryInfo[] = [
  {
    name: "build-cache",
    path: "",
    type: "procedural",
    description: "where the cache is",
    updated: "2026-11-30T10:00:00Z",
    source: "request r1",
  },
  { name: "setup", path: "", updated: "2026-11-29T10:00:00Z", source: "web" },
  { name: "notes", path: "", updated: "2026-11-28T10:00:00Z", error: "line 3: the frontmatter is not valid YAML" },
];

test("memories are listed with type, age, source and errors", () => {
  const [a, b, c] = memories.map(memoryItem);
  assert.equal(a.label, "build-cache");
  assert.ok(a.description!.startsWith("procedural · updated "));
  assert.equal(a.detail, "where the cache is");
  assert.ok(b.description!.endsWith("written after reading web content"));
  assert.equal(c.label, "$(warning) notes");
  assert.equal(c.detail, "Cannot be read as a memory: line 3: the frontmatter is not valid YAML");
});

test("Show Memories opens the picked memory's file", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tether-memories-"));
  try {
    const file = path.join(dir, "build-cache.md");
    writeFileSync(file, "---\ntype: procedural\n---\n\nClear .cache\n");
    const daemon = new StubDaemon();
    daemon.answer = (method) => {
      assert.equal(method, "memory/list");
      return { dir, memories: [{ ...memories[0], path: file }] };
    };
    fake.onShowQuickPick = (items) => items[0];
    await showMemories(daemon.asDaemon());
    assert.equal(fake.shownDocuments.length, 1);
    assert.equal(fake.shownDocuments[0].uri.fsPath, file);

    daemon.answer = () => ({ dir, memories: [] });
    await showMemories(daemon.asDaemon());
    assert.ok(fake.messages.some((m) => m.text.includes("no memories") && m.text.includes(dir)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
