// Approvals asked in the chat, where the user is looking. When the daemon
// asks to run a command, fetch from the web or read outside the workspace
// (approval/request), and the call came from a chat request, the extension
// invokes its own tool, tether_approval, with the call's chat token: its
// prepareInvocation returns VS Code's confirmationMessages, so VS Code
// shows the question in the chat, in the flow of the call it belongs to,
// with the full command line, host or path. VS Code's buttons are Allow
// and Skip; Tether's "Always allow <programs>" and "No, stop" are links in
// the message, drawn as bracketed bold buttons. The answer goes back to the daemon as the answer to its
// approval/request: the step is asked once, and "always" saves the
// daemon's rule.
//
// The calls of Tether's own tools (tether_shell…) never carry a VS Code
// confirmation, so VS Code's "Allow in this Session" can never stand in for
// Tether's answer, and tether_approval is not eligible for VS Code's
// automatic approval (package.json's configurationDefaults): an approval
// scoped to one program or host is never widened to a whole tool.

import * as vscode from "vscode";

import type { Answer } from "./hunks";
import {
  AnswerAlways,
  AnswerNo,
  AnswerSkip,
  AnswerYes,
  ApprovalFetch,
  ApprovalOutside,
  ApprovalRequestParams,
  ApprovalShell,
} from "./protocol";

/** The tool that puts an approval to the user in the chat (internal/manifest's ApprovalToolName). */
export const ApprovalToolName = "tether_approval";

/** The command the links in a confirmation run. */
export const ConfirmAnswerCommand = "tether.confirmAnswer";

/** Accepts the chat's confirmation on show, as Ctrl+Enter does: the link's answer then stands. */
const AcceptToolCommand = "workbench.action.chat.acceptTool";

/** The approvals asked in the chat; an edit has its review diff. */
const askedInChat = new Set<string>([ApprovalShell, ApprovalFetch, ApprovalOutside]);

export function isAskedInChat(a: ApprovalRequestParams): boolean {
  return askedInChat.has(a.kind);
}

/** One line of code, in a Markdown inline code span that cannot be broken out of. */
function code(s: string): string {
  const flat = s.replace(/\s*\n\s*/g, " ⏎ ");
  const ticks = Math.max(0, ...(flat.match(/`+/g) ?? []).map((m) => m.length)) + 1;
  const fence = "`".repeat(ticks);
  return `${fence} ${flat} ${fence}`;
}

/** Escapes Markdown's specials in plain text. */
function text(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, "\\$&");
}

/**
 * One of Tether's own answers, as a link drawn like a button. VS Code's
 * confirmation draws the links of its message in the colour of the text
 * around them, without underline, and keeps no markup inside a link (no
 * code span, no icon, no HTML); so the link is bold and in brackets, the
 * way text interfaces draw a button, alone on its line with what it does.
 */
function link(label: string, id: string, answer: Answer, tip: string): string {
  const args = encodeURIComponent(JSON.stringify([id, answer]));
  return `**[\\[ ${text(label)} \\]](command:${ConfirmAnswerCommand}?${args} "${tip.replace(/"/g, "'")}")**`;
}

/** What "Always" allows, as a short label ("Always allow touch and git"); undefined when it allows no more than this step. */
export function alwaysLabel(a: ApprovalRequestParams): string | undefined {
  const scope = a.alwaysScope;
  if (scope === "" || scope.startsWith("this ")) {
    return undefined;
  }
  switch (a.kind) {
    case ApprovalShell: {
      const m = /^run (.+) without asking/.exec(scope);
      return m ? `Always allow ${m[1]}` : "Always allow";
    }
    case ApprovalFetch:
      return a.host ? `Always allow ${a.host}` : "Always allow";
    case ApprovalOutside:
      return "Always allow this folder";
  }
  return "Always allow";
}

/** The title and message of VS Code's confirmation for one approval. */
export function confirmationMessages(
  a: ApprovalRequestParams,
  id: string,
): vscode.LanguageModelToolConfirmationMessages {
  let title: string;
  const lines: string[] = [];
  switch (a.kind) {
    case ApprovalShell:
      title =
        a.sandbox === false
          ? "Tether: run this command outside the sandbox?"
          : a.network
            ? "Tether: run this command with network access?"
            : "Tether: run this command?";
      lines.push(code(a.command ?? a.title));
      if (a.sandbox === false) {
        lines.push(
          "",
          text(
            "Outside the sandbox it runs with all of your rights: every file, the network, Docker, your other programs.",
          ),
        );
      }
      if ((a.untrusted ?? []).length > 0) {
        lines.push(
          "",
          text(
            `This request read content from outside first (${(a.untrusted ?? []).join(", ")}), so this is asked every time.`,
          ),
        );
      }
      break;
    case ApprovalFetch:
      title = `Tether: fetch from ${a.host ?? "the web"}?`;
      lines.push(code(a.url ?? a.title));
      break;
    default:
      title = "Tether: use a path outside the workspace?";
      lines.push(code(a.path ?? a.title));
      break;
  }
  // A shell title only repeats the command line above unless the agent
  // said what the command is for; the message stays short so that VS
  // Code's buttons under it stay in view.
  if (a.kind !== ApprovalShell || a.description) {
    lines.push("", text(a.title));
  }
  // VS Code's buttons read "Allow Once" and "Skip"; Tether's other
  // answers follow, one a line, each with what it does.
  lines.push("", "**Allow Once** runs it · **Skip** carries on without it", "");
  const always = alwaysLabel(a);
  if (always) {
    lines.push(
      `${link(always, id, AnswerAlways, `Allow it, and from now on ${a.alwaysScope}`)} ${text(`runs it, and from now on: ${a.alwaysScope}`)}  `,
    );
  }
  lines.push(
    `${link("No, stop", id, AnswerNo, "It does not run, and the agent stops to ask you how to go on")} ${text("does not run it, and stops the agent to ask you how to go on")}`,
  );
  const message = new vscode.MarkdownString(lines.join("\n"));
  message.isTrusted = { enabledCommands: [ConfirmAnswerCommand] };
  return { title, message };
}

/** What the approval tool is invoked with: what is asked about, in a few words the chat shows as its input. */
export function approvalInput(a: ApprovalRequestParams): Record<string, string> {
  switch (a.kind) {
    case ApprovalShell: {
      const input: Record<string, string> = { command: a.command ?? a.title };
      if (a.network) {
        input.network = "yes";
      }
      if (a.sandbox === false) {
        input.sandbox = "off: all of your rights";
      }
      return input;
    }
    case ApprovalFetch:
      return a.url ? { url: a.url, host: a.host ?? "" } : { host: a.host ?? a.title };
    default:
      return { path: a.path ?? a.title };
  }
}

interface Pending {
  id: string;
  key: string;
  approval: ApprovalRequestParams;
  /** Set by a link in the message; Allow leaves it unset. */
  answer?: Answer;
  /** Set when VS Code ran the approval tool: the user confirmed. */
  confirmed?: Answer;
}

/** The chat tokens of the calls running now, by request id: where their approvals are asked. */
export class ActiveCalls {
  private readonly calls = new Map<string, { token: unknown; count: number }>();

  /** Notes a call of requestId running with its chat token; dispose when it ends. */
  enter(requestId: string, token: unknown): vscode.Disposable {
    if (!requestId || token === undefined) {
      return new vscode.Disposable(() => undefined);
    }
    const c = this.calls.get(requestId) ?? { token, count: 0 };
    c.token = token;
    c.count++;
    this.calls.set(requestId, c);
    return new vscode.Disposable(() => {
      if (--c.count <= 0 && this.calls.get(requestId) === c) {
        this.calls.delete(requestId);
      }
    });
  }

  token(requestId: string): unknown {
    return this.calls.get(requestId)?.token;
  }
}

export interface ChatApprovalsOptions {
  /** Invokes a tool (tests pass a fake). */
  invokeTool?: typeof vscode.lm.invokeTool;
  /** Runs a VS Code command (tests pass a fake). */
  execute?: (command: string, ...args: unknown[]) => Thenable<unknown>;
}

/**
 * ChatApprovals asks the daemon's approvals in the chat through the
 * approval tool, and is that tool: VS Code calls back its
 * prepareInvocation (the confirmation to show) and, once the user allowed
 * it, its invoke.
 */
export class ChatApprovals implements vscode.LanguageModelTool<Record<string, string>> {
  readonly calls = new ActiveCalls();
  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  private readonly invokeTool: NonNullable<ChatApprovalsOptions["invokeTool"]>;
  private readonly execute: NonNullable<ChatApprovalsOptions["execute"]>;

  constructor(opts: ChatApprovalsOptions = {}) {
    this.invokeTool = opts.invokeTool ?? ((name, options, token) => vscode.lm.invokeTool(name, options, token));
    this.execute = opts.execute ?? ((c, ...a) => vscode.commands.executeCommand(c, ...a));
  }

  /** Whether an approval can be asked in the chat: its kind, and a chat request it belongs to. */
  canAsk(p: ApprovalRequestParams): boolean {
    return isAskedInChat(p) && this.calls.token(p.requestId) !== undefined;
  }

  /**
   * Asks an approval in the chat and waits for the answer: the link the
   * user picked, "yes" for Allow, "skip" for Skip or when the chat request
   * ends first.
   */
  async ask(p: ApprovalRequestParams, token?: vscode.CancellationToken): Promise<Answer> {
    const input = approvalInput(p);
    const entry: Pending = { id: `a${++this.seq}`, key: JSON.stringify(input), approval: p };
    this.pending.set(entry.id, entry);
    try {
      await this.invokeTool(
        ApprovalToolName,
        { input, toolInvocationToken: this.calls.token(p.requestId) as vscode.ChatParticipantToolToken },
        token,
      );
      // Skip in VS Code returns a result without running the tool.
      return entry.confirmed ?? AnswerSkip;
    } catch {
      // The chat request was stopped, or the confirmation cancelled.
      return entry.confirmed ?? AnswerSkip;
    } finally {
      this.pending.delete(entry.id);
    }
  }

  /** The oldest approval waiting with this input (the tool's calls carry no id of their own). */
  private byInput(input: unknown): Pending | undefined {
    const key = JSON.stringify(input ?? {});
    for (const e of this.pending.values()) {
      if (e.key === key && e.confirmed === undefined) {
        return e;
      }
    }
    return undefined;
  }

  prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<Record<string, string>>,
  ): vscode.PreparedToolInvocation {
    const e = this.byInput(options.input);
    if (!e) {
      // Nothing waits for this (another extension invoked the tool):
      // confirm it anyway, so that nothing is taken as approved unseen.
      return {
        invocationMessage: "Tether approval",
        confirmationMessages: { title: "Tether: approve?", message: "Nothing of Tether's waits for this approval." },
      };
    }
    // Shown once answered, whatever the answer: it must not say "approved".
    return {
      invocationMessage: `Tether asked: ${e.approval.title}`,
      confirmationMessages: confirmationMessages(e.approval, e.id),
    };
  }

  invoke(options: vscode.LanguageModelToolInvocationOptions<Record<string, string>>): vscode.LanguageModelToolResult {
    const e = this.byInput(options.input);
    if (e) {
      e.confirmed = e.answer ?? AnswerYes;
    }
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(e?.confirmed ?? AnswerSkip)]);
  }

  /** A link in the confirmation: note the answer, and accept the confirmation so it stands. */
  async choose(id: string, answer: Answer): Promise<boolean> {
    const e = this.pending.get(id);
    if (!e || e.confirmed !== undefined) {
      return false;
    }
    e.answer = answer;
    await this.execute(AcceptToolCommand);
    return true;
  }

  /** Approvals waiting in the chat now. */
  get waiting(): number {
    return this.pending.size;
  }
}

/** The answers of Tether's own prompt, in order. */
export const promptChoices: {
  answer: Answer;
  label: string;
  detail: (a: ApprovalRequestParams) => string | undefined;
}[] = [
  { answer: AnswerYes, label: "$(check) Yes", detail: () => "this once" },
  { answer: AnswerAlways, label: "$(check-all) Always", detail: (a) => a.alwaysScope || undefined },
  { answer: AnswerSkip, label: "$(debug-step-over) Skip", detail: () => "carry on without it" },
  { answer: AnswerNo, label: "$(close) No", detail: () => "stop, and let the agent ask how to go on" },
];
