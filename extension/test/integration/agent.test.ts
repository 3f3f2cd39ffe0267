// Integration: a sub-agent end to end through the extension's own code.
// The real daemon runs `agent`; its model turns come back to the
// extension as model/chat, which ModelBridge answers with a scripted
// language model (standing in for vscode.lm); the plan view shows the
// child's calls under the agent call, under the step in progress.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test as nodeTest } from "node:test";

import { Daemon } from "../../src/daemon";
import { ModelBridge } from "../../src/model";
import { PlanNode, PlanView } from "../../src/plan";
import { RequestIds } from "../../src/requestIds";
import { newToolContext, registerTools } from "../../src/tools";
import {
  CancellationTokenSource,
  LanguageModelChatMessage,
  LanguageModelTextPart,
  LanguageModelToolCallPart,
  LanguageModelToolResultPart,
  ThemeIcon,
  Uri,
  fake,
} from "../fake/vscode";
import { labelOf, logChannel, until } from "../stubDaemon";

function test(name: string, fn: () => Promise<void>): void {
  nodeTest(name, { timeout: 60_000 }, fn);
}

function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, "go.mod"))) {
    dir = path.dirname(dir);
  }
  return dir;
}

/**
 * The scripted model: its first answer to a child reads notes.txt, its
 * second answers in text with what the result said. It records what it
 * was sent.
 */
const sent: { messages: LanguageModelChatMessage[]; tools: { name: string }[] }[] = [];
const model = {
  id: "scripted",
  name: "Scripted",
  vendor: "test",
  family: "scripted",
  version: "1",
  maxInputTokens: 100_000,
  async sendRequest(messages: LanguageModelChatMessage[], options: { tools: { name: string }[] }) {
    sent.push({ messages, tools: options.tools });
    const results = messages
      .flatMap((m) => m.content)
      .filter((p): p is LanguageModelToolResultPart => p instanceof LanguageModelToolResultPart);
    const parts =
      results.length === 0
        ? [new LanguageModelToolCallPart("c1", "read_file", { path: "notes.txt" })]
        : [
            new LanguageModelTextPart(
              `notes.txt says: ${(results[0].content[0] as LanguageModelTextPart).value.split("\t")[1]}`,
            ),
          ];
    return {
      stream: (async function* () {
        yield* parts;
      })(),
    };
  },
  async countTokens(text: string | LanguageModelChatMessage) {
    return Math.ceil((typeof text === "string" ? text : JSON.stringify(text.content)).length / 4);
  },
};

let tmp: string;
let ws: string;
let daemon: Daemon;
/** The daemon once before() made it; unset if before() failed first. */
let made: Daemon | undefined;
let plan: PlanView;
const log = logChannel();

before(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "tether-agent-it-"));
  ws = path.join(tmp, "ws");
  mkdirSync(ws);
  const binary = path.join(tmp, process.platform === "win32" ? "tether.exe" : "tether");
  execFileSync("go", ["build", "-o", binary, "./cmd/tether"], { cwd: repoRoot(), stdio: "inherit" });
  for (const v of ["XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"]) {
    process.env[v] = path.join(tmp, v.toLowerCase());
  }
  fake.reset();
  fake.config["tether.path"] = binary;
  fake.folders = [{ uri: Uri.file(ws), name: "ws", index: 0 }];
  daemon = made = new Daemon({ extensionPath: tmp, clientVersion: "it", log, stopStepMs: 3000 });
  new ModelBridge(daemon, log, { selectChatModels: async () => [model as any] });
  plan = new PlanView(daemon);
  const pkg = JSON.parse(readFileSync(path.join(repoRoot(), "package.json"), "utf8"));
  registerTools(
    daemon,
    pkg.contributes.languageModelTools.map((t: { name: string }) => t.name),
    log,
    { ...newToolContext(), ids: new RequestIds() },
  );
});

after(async () => {
  const d = made;
  if (!d) {
    return;
  }
  plan.dispose();
  await d.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

async function call(tool: string, input: object, turn: object): Promise<string> {
  const res = await fake
    .tool(`tether_${tool}`)
    .invoke({ input, toolInvocationToken: fake.turnToken(turn) }, new CancellationTokenSource().token);
  return fake.text(res);
}

function render(node?: PlanNode, depth = 0): string[] {
  return plan.getChildren(node).flatMap((n) => {
    const t = plan.getTreeItem(n);
    return [`${"  ".repeat(depth)}${labelOf(t)} [${(t.iconPath as unknown as ThemeIcon).id}]`, ...render(n, depth + 1)];
  });
}

test("agent: an inspect sub-agent takes its turns from the editor's model, and the plan shows its calls", async () => {
  await daemon.ready();
  assert.ok(
    (daemon.initializeResult!.tools ?? []).some((t) => t.name === "agent"),
    "agent is offered to an editor that serves models",
  );
  writeFileSync(path.join(ws, "notes.txt"), "remember the milk\n");
  const turn = { sessionId: "chat-1" };
  await call("todo", { items: [{ text: "Find the notes", status: "in_progress" }] }, turn);
  const out = await call(
    "agent",
    { mode: "inspect", prompt: "What do the notes say?", description: "read the notes" },
    turn,
  );
  assert.match(out, /finished after 2 model turns and 1 tool call/);
  assert.match(out, /Its answer:\nnotes\.txt says: remember the milk/);
  assert.match(out, /Files it read: notes\.txt/);
  assert.deepEqual(sent[0].tools.map((t) => t.name).sort(), ["glob", "grep", "list_dir", "read_file"]);
  await until(
    () => render().length === 3 && !render().some((l) => l.includes("loading~spin]") && !l.startsWith("Find")),
    "the plan with the finished calls",
  );
  assert.deepEqual(render(), [
    "Find the notes [loading~spin]",
    "  Sub-agent (inspect): read the notes [pass]",
    "    Reading notes.txt [pass]",
  ]);
});
