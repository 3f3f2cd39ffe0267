import * as vscode from "vscode";

import { ComposeTool, type ComposeRuns } from "./compose";
import { Daemon, errorText } from "./daemon";
import { ToolPrefix } from "./names";
import { MethodToolsCall, MethodToolsPrepare, ToolCallParams, ToolCallResult, ToolPrepareResult } from "./protocol";
import { RequestIds } from "./requestIds";

/**
 * One of the daemon's tools as VS Code sees it. It only forwards: the
 * daemon decides everything, including when to ask the user, which is why
 * prepareInvocation never returns confirmationMessages (Tether's own review
 * UI does the asking, with the diff).
 */
export class TetherTool implements vscode.LanguageModelTool<unknown> {
  constructor(
    private readonly daemon: Daemon,
    /** The daemon's name for it: read_file, not tether_read_file. */
    private readonly name: string,
    private readonly ids: RequestIds,
    private readonly log: vscode.LogOutputChannel,
    /** Where compose calls are kept for "Show Compose Runs". */
    private readonly composeRuns?: ComposeRuns,
  ) {}

  async prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>,
    token: vscode.CancellationToken,
  ): Promise<vscode.PreparedToolInvocation> {
    const fallback = `Running ${this.name}`;
    try {
      // A preview has no chat request to belong to; it changes nothing.
      const params: ToolCallParams = { name: this.name, arguments: options.input ?? {}, requestId: "" };
      const res = await this.daemon.request<ToolPrepareResult>(MethodToolsPrepare, params, token);
      return { invocationMessage: res.message || res.title || fallback };
    } catch (e) {
      this.log.debug(`tools/prepare ${this.name}: ${errorText(e)}`);
      return { invocationMessage: fallback };
    }
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<unknown>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const requestId = this.ids.begin(options.toolInvocationToken);
    const run = this.name === ComposeTool ? this.composeRuns?.begin(requestId, options.input, options.toolInvocationToken) : undefined;
    try {
      const params: ToolCallParams = { name: this.name, arguments: options.input ?? {}, requestId };
      const budget = options.tokenizationOptions?.tokenBudget;
      if (typeof budget === "number" && budget > 0) {
        params.tokenBudget = Math.floor(budget);
      }
      const res = await this.daemon.request<ToolCallResult>(MethodToolsCall, params, token);
      this.composeRuns?.offer(this.name, params.arguments, res);
      if (res.isError) {
        this.log.debug(`${this.name} answered an error: ${res.content}`);
      }
      if (run) {
        this.composeRuns?.end(run, res);
        // A program's diffs stay out of the model's context like its other
        // intermediate results; its call list says what changed.
        return textResult(res.content);
      }
      // An error result is still the model's to read: it says what to do next.
      return textResult(modelText(res, params.tokenBudget));
    } catch (e) {
      if (run) {
        this.composeRuns?.end(run, undefined, errorText(e));
      }
      this.log.warn(`tools/call ${this.name}: ${errorText(e)}`);
      return textResult(`Tether could not run ${this.name}: ${errorText(e)}`);
    } finally {
      this.ids.end(options.toolInvocationToken);
    }
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

/** Registers every contributed tether_* tool with VS Code. */
export function registerTools(
  daemon: Daemon,
  contributed: readonly string[],
  log: vscode.LogOutputChannel,
  ids: RequestIds = new RequestIds(),
  composeRuns?: ComposeRuns,
): vscode.Disposable[] {
  return contributed
    .filter((n) => n.startsWith(ToolPrefix))
    .map((n) => vscode.lm.registerTool(n, new TetherTool(daemon, n.slice(ToolPrefix.length), ids, log, composeRuns)));
}
