// Approvals asked in the chat, where the user is looking: a call that the
// daemon says will ask (tools/prepare) gets VS Code's own confirmation,
// carrying the full command line, host or path. VS Code's buttons are Allow
// and Skip; Tether's other answers ride along as links in the message
// ("Always allow git in this project", "No, stop"). When VS Code confirms
// the call, the extension answers the daemon's approval/request for that
// same step from the confirmation, so the user is not asked twice, and an
// "always" still saves the daemon's rule.
//
// VS Code can also confirm a call by itself: the user picked "Allow in
// this Session" (or workspace, or always) for the tool, or turned on global
// auto-approve. VS Code says nothing about that to the tool, and its scope
// is the whole tool, not Tether's per-program or per-host rule. A call the
// user confirmed took at least the time to read and click; one VS Code
// confirmed by itself arrives as fast as a call that needed no confirmation.
// Such a call is not taken as the user's answer: the daemon asks, with
// Tether's own prompt, and from then on that tool's calls skip VS Code's
// confirmation and get Tether's prompt directly.

import * as vscode from "vscode";

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
import type { Answer } from "./hunks";

/** The approvals VS Code's confirmation carries; edits have their review diff. */
const confirmable = new Set<string>([ApprovalShell, ApprovalFetch, ApprovalOutside]);

export function isConfirmable(a: ApprovalRequestParams | undefined): a is ApprovalRequestParams {
  return a !== undefined && confirmable.has(a.kind);
}

/** The command the links in a confirmation run. */
export const ConfirmAnswerCommand = "tether.confirmAnswer";

/** Runs in VS Code's chat to accept the confirmation in view (Ctrl+Enter does the same). */
const AcceptToolCommand = "workbench.action.chat.acceptTool";

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

function link(label: string, id: string, answer: Answer, tip: string): string {
  const args = encodeURIComponent(JSON.stringify([id, answer]));
  return `[${text(label)}](command:${ConfirmAnswerCommand}?${args} "${tip.replace(/"/g, "'")}")`;
}

/** What "Always" allows, as a short label: "Always allow touch and git". */
export function alwaysLabel(a: ApprovalRequestParams): string | undefined {
  const scope = a.alwaysScope ?? "";
  if (scope === "" || scope.startsWith("this ")) {
    return undefined; // "always" would only allow this one step
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
export function confirmationMessages(a: ApprovalRequestParams, id: string): vscode.LanguageModelToolConfirmationMessages {
  let title: string;
  const lines: string[] = [];
  switch (a.kind) {
    case ApprovalShell:
      title = "Tether: run this command?";
      lines.push(code(a.command ?? a.title));
      break;
    case ApprovalFetch:
      title = `Tether: fetch from ${a.host ?? "the web"}?`;
      lines.push(text(a.title));
      break;
    default:
      title = "Tether: use a path outside the workspace?";
      lines.push(code(a.path ?? a.title));
      break;
  }
  lines.push("", text(a.title));
  const answers = ["**Allow** runs it this once", "**Skip** carries on without it"];
  const always = alwaysLabel(a);
  if (always) {
    answers.push(`${link(always, id, AnswerAlways, `Allow it and ${a.alwaysScope}`)}`);
  }
  answers.push(link("No, stop", id, AnswerNo, "It does not run, and the agent stops to ask you how to go on"));
  lines.push("", answers.join(" · "));
  const message = new vscode.MarkdownString(lines.join("\n"));
  message.isTrusted = { enabledCommands: [ConfirmAnswerCommand] };
  return { title, message };
}

/** A confirmation VS Code was given for a call, waiting for the call to run. */
export interface Confirmation {
  id: string;
  tool: string;
  key: string;
  approval: ApprovalRequestParams;
  preparedAt: number;
  /** Set when the user picked one of Tether's links in the message. */
  answer?: Answer;
}

export interface LedgerOptions {
  now?: () => number;
  /** The least time a person takes to read a confirmation and click, beyond the machine's own round trip. */
  humanMs?: number;
  /** Runs a VS Code command (tests pass a fake). */
  execute?: (command: string, ...args: unknown[]) => Thenable<unknown>;
}

/** How long a confirmation is remembered when its call never runs (the user skipped it). */
const forgetAfterMs = 30 * 60_000;

/** The stable key of a call: its tool and its input. */
export function callKey(tool: string, input: unknown): string {
  return `${tool}\u0000${JSON.stringify(input ?? {})}`;
}

/**
 * ConfirmationLedger remembers the confirmations handed to VS Code until
 * their calls run, tells a call the user confirmed from one VS Code
 * confirmed by itself, and keeps the tools VS Code approves by itself.
 */
export class ConfirmationLedger {
  private readonly pending = new Map<string, Confirmation[]>();
  private readonly byId = new Map<string, Confirmation>();
  /** Tools VS Code confirms without showing anything. */
  private readonly autoApproved = new Set<string>();
  /** Recent times from prepare to invoke of calls that asked nothing: the machine's own round trip. */
  private readonly roundTrips: number[] = [];
  private readonly unconfirmed = new Map<string, number>();
  private seq = 0;
  private readonly now: () => number;
  private readonly humanMs: number;
  private readonly execute: NonNullable<LedgerOptions["execute"]>;

  constructor(opts: LedgerOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.humanMs = opts.humanMs ?? 400;
    this.execute = opts.execute ?? ((c, ...a) => vscode.commands.executeCommand(c, ...a));
  }

  /** Whether VS Code is known to confirm this tool's calls by itself. */
  approvesByItself(tool: string): boolean {
    return this.autoApproved.has(tool) || globalAutoApprove();
  }

  /** Records a confirmation handed to VS Code in prepareInvocation. */
  prepared(tool: string, input: unknown, approval: ApprovalRequestParams): Confirmation {
    this.forgetOld();
    const c: Confirmation = { id: `c${++this.seq}`, tool, key: callKey(tool, input), approval, preparedAt: this.now() };
    const list = this.pending.get(c.key) ?? [];
    list.push(c);
    this.pending.set(c.key, list);
    this.byId.set(c.id, c);
    return c;
  }

  /** Records that prepareInvocation asked for no confirmation, to time the round trip to invoke. */
  preparedWithout(tool: string, input: unknown): void {
    const key = callKey(tool, input);
    this.unconfirmed.set(key, this.now());
    if (this.unconfirmed.size > 64) {
      this.unconfirmed.delete(this.unconfirmed.keys().next().value!);
    }
  }

  /** The user picked one of Tether's answers in the message: note it and accept VS Code's confirmation. */
  async choose(id: string, answer: Answer): Promise<boolean> {
    const c = this.byId.get(id);
    if (!c) {
      return false; // answered already, or forgotten
    }
    c.answer = answer;
    await this.execute(AcceptToolCommand);
    return true;
  }

  /**
   * The user's answer for a call that is starting, if VS Code confirmed it
   * with the user: Tether's link they picked, else "yes" for Allow. It is
   * undefined when VS Code asked nothing, or confirmed the call by itself,
   * which is then remembered for the tool.
   */
  claim(tool: string, input: unknown): { answer: Answer; approval: ApprovalRequestParams } | undefined {
    const key = callKey(tool, input);
    const now = this.now();
    const started = this.unconfirmed.get(key);
    if (started !== undefined) {
      this.unconfirmed.delete(key);
      this.roundTrips.push(now - started);
      if (this.roundTrips.length > 8) {
        this.roundTrips.shift();
      }
    }
    // The newest: an older one with the same input was skipped in VS Code
    // and its call never ran.
    const list = this.pending.get(key);
    const c = list?.pop();
    if (list && list.length === 0) {
      this.pending.delete(key);
    }
    if (!c) {
      return undefined;
    }
    this.byId.delete(c.id);
    if (c.answer) {
      return { answer: c.answer, approval: c.approval };
    }
    if (now - c.preparedAt < this.threshold()) {
      this.autoApproved.add(tool);
      return undefined;
    }
    return { answer: AnswerYes, approval: c.approval };
  }

  /** The least time between prepare and invoke that a person's click takes. */
  threshold(): number {
    const sorted = [...this.roundTrips].sort((a, b) => a - b);
    const median = sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)] : 0;
    return this.humanMs + 2 * median;
  }

  private forgetOld(): void {
    const cutoff = this.now() - forgetAfterMs;
    for (const [key, list] of this.pending) {
      const kept = list.filter((c) => c.preparedAt >= cutoff);
      for (const c of list) {
        if (c.preparedAt < cutoff) {
          this.byId.delete(c.id);
        }
      }
      if (kept.length > 0) {
        this.pending.set(key, kept);
      } else {
        this.pending.delete(key);
      }
    }
  }
}

/** VS Code's global auto-approve: every tool runs unconfirmed. */
function globalAutoApprove(): boolean {
  try {
    return vscode.workspace.getConfiguration("chat.tools.global").get<boolean>("autoApprove", false) === true;
  } catch {
    return false;
  }
}

/** One answer the user already gave for a step a running call will ask about. */
interface Grant {
  requestId: string;
  approval: ApprovalRequestParams;
  answer: Answer;
}

/** The part of an approval that says what exactly is allowed. */
function subject(a: ApprovalRequestParams): string | undefined {
  switch (a.kind) {
    case ApprovalShell:
      return a.command;
    case ApprovalFetch:
      return a.host;
    case ApprovalOutside:
      return a.path;
  }
  return undefined;
}

/**
 * Grants hold the answers given in VS Code's confirmation while their calls
 * run, and answer the daemon's approval/request for exactly that step: the
 * same request, tool, kind, and command line, host or path.
 */
export class Grants {
  private readonly list: Grant[] = [];

  /** Holds an answer for the duration of a call; dispose when the call ends. */
  add(requestId: string, approval: ApprovalRequestParams, answer: Answer): vscode.Disposable {
    const g: Grant = { requestId, approval, answer };
    this.list.push(g);
    return new vscode.Disposable(() => {
      const i = this.list.indexOf(g);
      if (i >= 0) {
        this.list.splice(i, 1);
      }
    });
  }

  /** The answer for an approval/request, used up once given. */
  take(p: ApprovalRequestParams): Answer | undefined {
    const want = subject(p);
    if (want === undefined) {
      return undefined;
    }
    const i = this.list.findIndex(
      (g) => g.requestId === p.requestId && g.approval.tool === p.tool && g.approval.kind === p.kind && subject(g.approval) === want,
    );
    if (i < 0) {
      return undefined;
    }
    const [g] = this.list.splice(i, 1);
    return g.answer;
  }

  get size(): number {
    return this.list.length;
  }
}

/** The answers of Tether's own prompt, in order. */
export const promptChoices: { answer: Answer; label: string; detail: (a: ApprovalRequestParams) => string | undefined }[] = [
  { answer: AnswerYes, label: "$(check) Yes", detail: () => "this once" },
  { answer: AnswerAlways, label: "$(check-all) Always", detail: (a) => a.alwaysScope || undefined },
  { answer: AnswerSkip, label: "$(debug-step-over) Skip", detail: () => "carry on without it" },
  { answer: AnswerNo, label: "$(close) No", detail: () => "stop, and let the agent ask how to go on" },
];
