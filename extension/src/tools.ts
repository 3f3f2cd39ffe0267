import * as vscode from "vscode";

import { ComposeTool, type ComposeRuns } from "./compose";
import { ActiveCalls, ApprovalToolName, ChatApprovals } from "./confirm";
import { Daemon, errorText } from "./daemon";
import { ToolPrefix } from "./names";
import {
  ApprovalEdit,
  ApprovalRequestParams,
  requestsTurn,
  toolsCall,
  toolsPrepare,
  ToolCallParams,
  ToolCallResult,
  ToolPrepareResult,
} from "./protocol";
import { RequestIds } from "./requestIds";
import { RequestLog } from "./requestLog";

/** What the tools share: request ids, the calls running (whose approvals are asked in their chat), the log of requests. */
export interface ToolContext {
  ids: RequestIds;
  calls: ActiveCalls;
  requests: RequestLog;
  /** Each call's progress message from prepareInvocation, by callKey, until it runs. */
  titles: Map<string, string>;
  /** Where compose calls are kept for "Show Compose Runs". */
  composeRuns?: ComposeRuns;
}

export function newToolContext(
  calls: ActiveCalls = new ActiveCalls(),
  requests: RequestLog = new RequestLog(),
): ToolContext {
  return { ids: new RequestIds(), calls, requests, titles: new Map() };
}

/** The stable key of a call: its tool and its input. */
export function callKey(tool: string, input: unknown): string {
  return `${tool}\u0000${JSON.stringify(input ?? {})}`;
}

/** The progress message of a call the daemon will stop to ask about. */
export function waitingMessage(message: string, a: ApprovalRequestParams): string {
  return a.kind === ApprovalEdit ? `${message}: waiting for your review` : `${message}: waiting for your approval`;
}

/**
 * One of the daemon's tools as VS Code sees it. It only forwards: the
 * daemon decides everything, including when to ask the user. The call
 * carries no VS Code confirmation of its own: what the daemon asks about a
 * command, a fetch or a path outside the workspace is put to the user in
 * the chat by the approval tool (confirm.ts), scoped as Tether scopes it,
 * and an edit is reviewed in Tether's diff. The progress message says when
 * a call will wait for one of those (tools/prepare knows).
 */
export class TetherTool implements vscode.LanguageModelTool<unknown> {
  private readonly ctx: ToolContext;

  constructor(
    private readonly daemon: Daemon,
    /** The daemon's name for it: read_file, not tether_read_file. */
    private readonly name: string,
    ctx: RequestIds | ToolContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.ctx = ctx instanceof RequestIds ? { ...newToolContext(), ids: ctx } : ctx;
  }

  async prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>,
    token: vscode.CancellationToken,
  ): Promise<vscode.PreparedToolInvocation> {
    const fallback = `Running ${this.name}`;
    const input = options.input ?? {};
    let res: ToolPrepareResult;
    try {
      // A preview has no chat request to belong to; it changes nothing.
      const params: ToolCallParams = { name: this.name, arguments: input, requestId: "" };
      res = await this.daemon.request(toolsPrepare, params, token);
    } catch (e) {
      this.log.debug(`tools/prepare ${this.name}: ${errorText(e)}`);
      return { invocationMessage: fallback };
    }
    const message = res.message || res.title || fallback;
    remember(this.ctx.titles, callKey(this.name, input), message);
    return { invocationMessage: res.needsApproval && res.approval ? waitingMessage(message, res.approval) : message };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<unknown>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const requestId = await this.ctx.ids.of(options.toolInvocationToken, (session) => this.turn(session, token));
    const input = options.input ?? {};
    // While it runs, the daemon's approvals for this request are asked in its chat.
    const running = this.ctx.calls.enter(requestId, options.toolInvocationToken);
    const key = callKey(this.name, input);
    const title = this.ctx.titles.get(key);
    this.ctx.titles.delete(key);
    const composeRuns = this.ctx.composeRuns;
    const run =
      this.name === ComposeTool ? composeRuns?.begin(requestId, input, options.toolInvocationToken) : undefined;
    try {
      const params: ToolCallParams = { name: this.name, arguments: input, requestId };
      const budget = options.tokenizationOptions?.tokenBudget;
      if (typeof budget === "number" && budget > 0) {
        params.tokenBudget = Math.floor(budget);
      }
      const res = await this.daemon.request(toolsCall, params, token);
      composeRuns?.offer(this.name, params.arguments, res);
      if (res.isError) {
        this.log.debug(`${this.name} answered an error: ${res.content}`);
      } else {
        this.ctx.requests.record(requestId, title ?? "", res.diff);
      }
      if (run) {
        composeRuns?.end(run, res);
        // A program's diffs stay out of the model's context like its other
        // intermediate results; its call list says what changed.
        return textResult(res.content);
      }
      // An error result is still the model's to read: it says what to do next.
      return textResult(modelText(res, params.tokenBudget));
    } catch (e) {
      if (run) {
        composeRuns?.end(run, undefined, errorText(e));
      }
      this.log.warn(`tools/call ${this.name}: ${errorText(e)}`);
      return textResult(`Tether could not run ${this.name}: ${errorText(e)}`);
    } finally {
      running.dispose();
    }
  }

  /** Asks the daemon which request (chat turn) a call of the session belongs to. */
  private async turn(session: string, token: vscode.CancellationToken): Promise<string> {
    try {
      return (await this.daemon.request(requestsTurn, { session }, token)).requestId;
    } catch (e) {
      this.log.warn(`requests/turn: ${errorText(e)}; the call is a request of its own`);
      throw e;
    }
  }
}

/** Sets a key in a map kept to its newest entries. */
function remember(m: Map<string, string>, key: string, value: string): void {
  m.delete(key);
  m.set(key, value);
  for (const old of m.keys()) {
    if (m.size <= 64) {
      break;
    }
    m.delete(old);
  }
}

// The daemon's output budget in characters: 4 a token, 20,000 tokens when
// the call names none (tools/budget.go).
const charsPerToken = 4;
const defaultBudgetTokens = 20_000;

/**
 * What the model reads: the daemon's message, then the diff of what was
 * written. The diff is how a change's lines and their numbers reach the
 * model, and the message may refer to it ("the diff is what was written").
 * The daemon fits only the message to the budget, so a diff that would
 * overflow it is cut at a line, with a note.
 */
export function modelText(res: ToolCallResult, budgetTokens?: number): string {
  if (!res.diff) {
    return res.content;
  }
  const head = `${res.content.replace(/\n+$/, "")}\n\n`;
  const room = (budgetTokens ?? defaultBudgetTokens) * charsPerToken - head.length;
  if (res.diff.length <= room) {
    return head + res.diff;
  }
  const kept = res.diff.slice(0, Math.max(0, room - 120));
  const cut = kept.slice(0, kept.lastIndexOf("\n") + 1);
  const left = res.diff.slice(cut.length).split("\n").filter(Boolean).length;
  return `${head}${cut}… [${left} more diff lines left out; read the file to see the result]\n`;
}

function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** Registers every contributed tether_* tool with VS Code: the daemon's, and the approval tool. */
export function registerTools(
  daemon: Daemon,
  contributed: readonly string[],
  log: vscode.LogOutputChannel,
  ctx: ToolContext = newToolContext(),
  chat?: ChatApprovals,
): vscode.Disposable[] {
  const out = contributed
    .filter((n) => n.startsWith(ToolPrefix) && n !== ApprovalToolName)
    .map((n) => vscode.lm.registerTool(n, new TetherTool(daemon, n.slice(ToolPrefix.length), ctx, log)));
  if (chat && contributed.includes(ApprovalToolName)) {
    out.push(vscode.lm.registerTool(ApprovalToolName, chat));
  }
  return out;
}
