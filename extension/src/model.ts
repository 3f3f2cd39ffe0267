// model/chat: the daemon's sub-agents take their model turns from a
// language model the editor serves (vscode.lm). The daemon runs the loop
// and owns every rule; this only turns one conversation into one
// sendRequest and the response back into the protocol's shape.

import * as vscode from "vscode";
import { ResponseError } from "vscode-jsonrpc";

import { configSection } from "./config";
import { errorText } from "./daemon";
import type { Daemon } from "./daemon";
import { ChatMessage, ChatTool, ChatToolCall, modelChat, ModelChatParams, ModelChatResult } from "./protocol";

/** The setting naming the model: "vendor/family", a family alone, or "" for the first model the user has. */
export const modelSettingKey = "agent.model";

/** The part of vscode.lm the bridge uses; tests pass their own. */
export interface ModelSource {
  selectChatModels(selector?: vscode.LanguageModelChatSelector): Thenable<vscode.LanguageModelChat[]>;
}

/** JSON-RPC error codes of a model/chat that could not be answered. */
export const ModelErrorCodes = { NoModel: -32001, Refused: -32002, Failed: -32003 } as const;

/** Reads tether.agent.model into a selector; undefined selects any model. */
export function modelSelector(setting: string): vscode.LanguageModelChatSelector | undefined {
  const s = setting.trim();
  if (!s) {
    return undefined;
  }
  const slash = s.indexOf("/");
  if (slash < 0) {
    return { family: s };
  }
  const vendor = s.slice(0, slash).trim();
  const family = s.slice(slash + 1).trim();
  return { ...(vendor ? { vendor } : {}), ...(family ? { family } : {}) };
}

/**
 * The protocol's messages as VS Code's: a tool's result becomes a user
 * message's tool-result part (consecutive results share one message, as
 * the API expects after an assistant message with several calls).
 */
export function toChatMessages(msgs: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  let results: vscode.LanguageModelToolResultPart[] | undefined;
  for (const m of msgs) {
    if (m.role === "tool") {
      const part = new vscode.LanguageModelToolResultPart(m.toolCallId ?? "", [
        new vscode.LanguageModelTextPart(m.content),
      ]);
      if (results) {
        results.push(part);
      } else {
        results = [part];
        out.push(vscode.LanguageModelChatMessage.User(results));
      }
      continue;
    }
    results = undefined;
    if (m.role === "assistant") {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
      if (m.content) {
        parts.push(new vscode.LanguageModelTextPart(m.content));
      }
      for (const c of m.toolCalls ?? []) {
        parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, inputObject(c.arguments)));
      }
      out.push(vscode.LanguageModelChatMessage.Assistant(parts.length > 0 ? parts : ""));
    } else {
      out.push(vscode.LanguageModelChatMessage.User(m.content));
    }
  }
  return out;
}

function inputObject(args: unknown): object {
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return {};
    }
  }
  return typeof args === "object" && args !== null && !Array.isArray(args) ? args : {};
}

function toChatTools(tools: readonly ChatTool[]): vscode.LanguageModelChatTool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: typeof t.inputSchema === "object" && t.inputSchema !== null ? t.inputSchema : undefined,
  }));
}

/**
 * ModelBridge answers model/chat. The model is tether.agent.model's, or
 * the first the user has; VS Code asks the user's consent the first time
 * Tether uses it. Tokens are counted with the model's own countTokens, and
 * its window goes back so the daemon can stop a sub-agent that outgrows it.
 */
export class ModelBridge {
  constructor(
    daemon: Daemon,
    private readonly log: vscode.LogOutputChannel,
    private readonly lm: ModelSource = vscode.lm,
    private readonly setting: () => string = () =>
      vscode.workspace.getConfiguration(configSection).get<string>(modelSettingKey, ""),
  ) {
    daemon.onRequest(modelChat, (p: ModelChatParams, token) =>
      this.chat(p, token as unknown as vscode.CancellationToken),
    );
  }

  async chat(p: ModelChatParams, token: vscode.CancellationToken): Promise<ModelChatResult> {
    const model = await this.pick(p.modelHint);
    const messages = toChatMessages(p.messages ?? []);
    const tools = toChatTools(p.tools ?? []);
    let response: vscode.LanguageModelChatResponse;
    try {
      response = await model.sendRequest(
        messages,
        { tools, justification: "Tether runs a sub-agent that your chat's agent started, with this model." },
        token,
      );
    } catch (e) {
      throw this.failure(model, e);
    }
    let content = "";
    const toolCalls: ChatToolCall[] = [];
    try {
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          content += part.value;
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          toolCalls.push({ id: part.callId, name: part.name, arguments: part.input });
        }
      }
    } catch (e) {
      throw this.failure(model, e);
    }
    const [inputTokens, outputTokens] = await Promise.all([
      this.count(model, [...messages, JSON.stringify(tools)], token),
      this.count(model, [content + (toolCalls.length > 0 ? JSON.stringify(toolCalls) : "")], token),
    ]);
    return {
      content,
      toolCalls,
      stopReason: toolCalls.length > 0 ? "toolCalls" : "end",
      usage: { inputTokens, outputTokens },
      maxInputTokens: model.maxInputTokens > 0 ? model.maxInputTokens : undefined,
    };
  }

  /** The model to use: the setting's, else the daemon's hint, else the first. */
  private async pick(hint?: string): Promise<vscode.LanguageModelChat> {
    const configured = this.setting();
    const selector = modelSelector(configured);
    if (selector) {
      const m = (await this.lm.selectChatModels(selector)).at(0);
      if (!m) {
        throw new ResponseError(
          ModelErrorCodes.NoModel,
          `No language model matches tether.agent.model "${configured}". Use "vendor/family" of a model you have (for example copilot/gpt-4o), or clear the setting to use your first model.`,
        );
      }
      return m;
    }
    if (hint) {
      const m = (await this.lm.selectChatModels({ family: hint })).at(0);
      if (m) {
        return m;
      }
    }
    const first = (await this.lm.selectChatModels()).at(0);
    if (!first) {
      throw new ResponseError(
        ModelErrorCodes.NoModel,
        "No language model is available in this editor, so Tether cannot run a sub-agent. Install and sign in to a model provider (such as GitHub Copilot).",
      );
    }
    return first;
  }

  /** Counts tokens with the model's tokenizer; a count it cannot give is estimated. */
  private async count(
    model: vscode.LanguageModelChat,
    parts: (string | vscode.LanguageModelChatMessage)[],
    token: vscode.CancellationToken,
  ): Promise<number> {
    const counts = await Promise.all(
      parts.map(async (p) => {
        try {
          return await model.countTokens(p, token);
        } catch (e) {
          this.log.debug(`countTokens: ${errorText(e)}`);
          return Math.ceil((typeof p === "string" ? p.length : JSON.stringify(p.content).length) / 4);
        }
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Says why a model turn failed, in words the daemon passes to the agent and the user. */
  private failure(model: vscode.LanguageModelChat, e: unknown): ResponseError {
    const name = `${model.name || model.id} (${model.vendor})`;
    this.log.warn(`model/chat with ${name}: ${errorText(e)}`);
    if (e instanceof vscode.LanguageModelError) {
      switch (e.code) {
        case vscode.LanguageModelError.NoPermissions.name:
          return new ResponseError(ModelErrorCodes.Refused, `the user has not allowed Tether to use ${name}`);
        case vscode.LanguageModelError.Blocked.name:
          return new ResponseError(
            ModelErrorCodes.Refused,
            `${name} refused the request (a quota or a policy): ${e.message}`,
          );
        case vscode.LanguageModelError.NotFound.name:
          return new ResponseError(ModelErrorCodes.NoModel, `${name} is no longer available`);
      }
    }
    return new ResponseError(ModelErrorCodes.Failed, `${name} failed: ${errorText(e)}`);
  }
}
