import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { ResponseError } from "vscode-jsonrpc";

import { ModelBridge, ModelErrorCodes, modelSelector, toChatMessages } from "../src/model";
import {
  CancellationTokenSource,
  LanguageModelChatMessage,
  LanguageModelChatMessageRole,
  LanguageModelError,
  LanguageModelTextPart,
  LanguageModelToolCallPart,
  LanguageModelToolResultPart,
  fake,
} from "./fake/vscode";
import { StubDaemon, logChannel } from "./stubDaemon";

beforeEach(() => fake.reset());

/** A language model that answers from a script and counts a token a word. */
class FakeModel {
  requests: { messages: LanguageModelChatMessage[]; options: any; token: unknown }[] = [];
  constructor(
    readonly id: string,
    readonly vendor: string,
    readonly family: string,
    readonly answer: () => unknown[] | Error,
    readonly maxInputTokens = 64_000,
    readonly name = `Model ${id}`,
  ) {}
  async sendRequest(messages: LanguageModelChatMessage[], options: unknown, token: unknown) {
    this.requests.push({ messages, options, token });
    const parts = this.answer();
    if (parts instanceof Error) {
      throw parts;
    }
    return {
      stream: (async function* () {
        yield* parts;
      })(),
    };
  }
  async countTokens(text: string | LanguageModelChatMessage): Promise<number> {
    const s = typeof text === "string" ? text : JSON.stringify(text.content);
    return s.split(/\s+/).filter(Boolean).length;
  }
}

/** A stand-in for vscode.lm: selects from its models as VS Code does, by vendor, family, id. */
function source(...models: FakeModel[]) {
  const asked: unknown[] = [];
  return {
    asked,
    async selectChatModels(sel?: { vendor?: string; family?: string; id?: string }) {
      asked.push(sel);
      return models.filter(
        (m) =>
          (!sel?.vendor || m.vendor === sel.vendor) &&
          (!sel?.family || m.family === sel.family) &&
          (!sel?.id || m.id === sel.id),
      ) as any[];
    },
  };
}

function bridge(lm: ReturnType<typeof source>, setting = "") {
  const daemon = new StubDaemon();
  const b = new ModelBridge(daemon.asDaemon(), logChannel(), lm, () => setting);
  return { b, daemon };
}

const token = () => new CancellationTokenSource().token as any;

test("the setting reads as vendor/family, a family alone, or nothing", () => {
  assert.deepEqual(modelSelector("copilot/gpt-4o"), { vendor: "copilot", family: "gpt-4o" });
  assert.deepEqual(modelSelector(" gpt-4o "), { family: "gpt-4o" });
  assert.deepEqual(modelSelector("copilot/"), { vendor: "copilot" });
  assert.equal(modelSelector(""), undefined);
  assert.equal(modelSelector("   "), undefined);
});

test("the protocol's messages become VS Code's, results of one turn in one user message", () => {
  const msgs = toChatMessages([
    { role: "user", content: "task" },
    {
      role: "assistant",
      content: "looking",
      toolCalls: [
        { id: "c1", name: "read_file", arguments: { path: "a" } },
        { id: "c2", name: "grep", arguments: '{"pattern":"x"}' },
      ],
    },
    { role: "tool", content: "a's text", toolCallId: "c1" },
    { role: "tool", content: "no match", toolCallId: "c2" },
    { role: "assistant", content: "", toolCalls: [{ id: "c3", name: "glob", arguments: null }] },
    { role: "tool", content: "files", toolCallId: "c3" },
  ]) as unknown as LanguageModelChatMessage[];
  assert.deepEqual(
    msgs.map((m) => m.role),
    [
      LanguageModelChatMessageRole.User,
      LanguageModelChatMessageRole.Assistant,
      LanguageModelChatMessageRole.User,
      LanguageModelChatMessageRole.Assistant,
      LanguageModelChatMessageRole.User,
    ],
  );
  const [text, call1, call2] = msgs[1].content as any[];
  assert.equal((text as LanguageModelTextPart).value, "looking");
  assert.deepEqual([call1.callId, call1.name, call1.input], ["c1", "read_file", { path: "a" }]);
  assert.deepEqual(call2.input, { pattern: "x" }, "arguments sent as a JSON string are parsed");
  const results = msgs[2].content as LanguageModelToolResultPart[];
  assert.deepEqual(
    results.map((r) => r.callId),
    ["c1", "c2"],
  );
  assert.equal((results[0].content[0] as LanguageModelTextPart).value, "a's text");
  assert.equal(msgs[3].content.length, 1, "an empty text part is left out");
  assert.deepEqual((msgs[3].content[0] as LanguageModelToolCallPart).input, {});
});

test("model/chat: tool calls come back with usage counted by the model and its window", async () => {
  const model = new FakeModel("m1", "copilot", "gpt-4o", () => [
    new LanguageModelTextPart("let me look"),
    new LanguageModelToolCallPart("call-9", "read_file", { path: "a.go" }),
  ]);
  const { daemon } = bridge(source(model));
  const handler = daemon.requestHandlers.get("model/chat")!;
  const tok = token();
  const res: any = await handler(
    {
      requestId: "r1",
      messages: [{ role: "user", content: "read a dot go please" }],
      tools: [{ name: "read_file", description: "Reads", inputSchema: { type: "object" } }],
    },
    tok,
  );
  assert.equal(res.content, "let me look");
  assert.deepEqual(res.toolCalls, [{ id: "call-9", name: "read_file", arguments: { path: "a.go" } }]);
  assert.equal(res.stopReason, "toolCalls");
  assert.equal(res.maxInputTokens, 64_000);
  assert.ok(res.usage.inputTokens >= 5, `input tokens ${res.usage.inputTokens}`);
  assert.ok(res.usage.outputTokens >= 3, `output tokens ${res.usage.outputTokens}`);
  const sent = model.requests[0];
  assert.deepEqual(sent.options.tools, [{ name: "read_file", description: "Reads", inputSchema: { type: "object" } }]);
  assert.match(sent.options.justification, /sub-agent/);
  assert.equal(sent.token, tok, "the daemon's cancellation reaches the model");
});

test("model/chat: a text answer ends the turn", async () => {
  const { b } = bridge(
    source(new FakeModel("m1", "v", "f", () => [new LanguageModelTextPart("all "), new LanguageModelTextPart("done")])),
  );
  const res = await b.chat({ requestId: "r", messages: [{ role: "user", content: "x" }], tools: null }, token());
  assert.equal(res.content, "all done");
  assert.deepEqual(res.toolCalls, []);
  assert.equal(res.stopReason, "end");
});

test("the model is the setting's, else the daemon's hint, else the first", async () => {
  const a = new FakeModel("a", "copilot", "gpt-4o", () => [new LanguageModelTextPart("a")]);
  const b = new FakeModel("b", "other", "llama", () => [new LanguageModelTextPart("b")]);
  const params = (hint?: string) => ({
    requestId: "r",
    messages: [{ role: "user" as const, content: "x" }],
    tools: [],
    modelHint: hint,
  });
  assert.equal((await bridge(source(a, b)).b.chat(params(), token())).content, "a");
  assert.equal((await bridge(source(a, b), "other/llama").b.chat(params(), token())).content, "b");
  assert.equal((await bridge(source(a, b), "llama").b.chat(params(), token())).content, "b");
  assert.equal((await bridge(source(a, b)).b.chat(params("llama"), token())).content, "b");
  assert.equal((await bridge(source(a, b)).b.chat(params("nothing-like-it"), token())).content, "a");
  assert.equal(
    (await bridge(source(a, b), "copilot/gpt-4o").b.chat(params("llama"), token())).content,
    "a",
    "the setting beats the hint",
  );
});

test("no model, a setting that matches none, and a refused consent are errors that say so", async () => {
  const params = { requestId: "r", messages: [{ role: "user" as const, content: "x" }], tools: [] };
  await assert.rejects(
    bridge(source()).b.chat(params, token()),
    (e: ResponseError) => e.code === ModelErrorCodes.NoModel && e.message.includes("No language model is available"),
  );
  const a = new FakeModel("a", "copilot", "gpt-4o", () => LanguageModelError.NoPermissions("no consent"));
  await assert.rejects(bridge(source(a), "acme/big").b.chat(params, token()), (e: ResponseError) =>
    /No language model matches tether.agent.model "acme\/big"/.test(e.message),
  );
  await assert.rejects(
    bridge(source(a)).b.chat(params, token()),
    (e: ResponseError) =>
      e.code === ModelErrorCodes.Refused && e.message.includes("has not allowed Tether to use Model a (copilot)"),
  );
  const broken = new FakeModel("z", "v", "f", () => new Error("socket hang up"));
  await assert.rejects(
    bridge(source(broken)).b.chat(params, token()),
    (e: ResponseError) => e.code === ModelErrorCodes.Failed && e.message.includes("socket hang up"),
  );
});

test("a model whose tokenizer fails still reports an estimate", async () => {
  const m = new FakeModel("m", "v", "f", () => [new LanguageModelTextPart("twelve chars")]);
  m.countTokens = async () => {
    throw new Error("no tokenizer");
  };
  const res = await bridge(source(m)).b.chat(
    { requestId: "r", messages: [{ role: "user", content: "x".repeat(400) }], tools: [] },
    token(),
  );
  assert.ok(res.usage!.inputTokens >= 100, `estimated input ${res.usage!.inputTokens}`);
  assert.equal(res.usage!.outputTokens, 3);
});
