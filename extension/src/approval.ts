// approval/request: an edit opens as a diff to review hunk by hunk; a
// command, a fetch or a path outside the workspace is asked in the chat the
// call came from, as VS Code's confirmation (confirm.ts); anything else (a
// memory write, a move, a call from outside a chat) in a Tether prompt at
// the top of the window. Every one shows exactly what would happen.

import * as vscode from "vscode";
import type { CancellationToken as RpcCancellationToken } from "vscode-jsonrpc";

import type { Daemon } from "./daemon";
import { errorText } from "./daemon";
import { ChatApprovals, promptChoices } from "./confirm";
import { EditReview } from "./editReview";
import type { Answer } from "./hunks";
import { OpenReviewCommand, OriginalScheme, ProposedScheme, ReviewingContext } from "./names";
import { ProposalFs } from "./proposalFs";
import { SetReview } from "./setReview";
import {
  AnswerAlways,
  AnswerSkip,
  AnswerYes,
  ApprovalEdit,
  ApprovalFetch,
  ApprovalMemory,
  ApprovalOutside,
  ApprovalRequestParams,
  ApprovalRequestResult,
  ApprovalShell,
  approvalRequest,
} from "./protocol";

interface Pending {
  /** The file under review (for a change set, the file this entry is of). */
  review: EditReview;
  /** The change set the file belongs to, answered as one. */
  set?: SetReview;
  finish: (result: ApprovalRequestResult) => void;
}

/** A change with texts to compare (a file, a project memory) is reviewed in the diff editor. */
export function isReviewable(p: ApprovalRequestParams): boolean {
  return (
    (p.kind === ApprovalEdit || p.kind === ApprovalOutside || p.kind === ApprovalMemory) &&
    (p.original !== undefined || p.proposed !== undefined)
  );
}

/** For a memory write after the request read content from outside: what was read, in words; else undefined. */
export function untrustedWarning(p: ApprovalRequestParams): string | undefined {
  const sources = p.untrusted ?? [];
  if (sources.length === 0) {
    return undefined;
  }
  return `This request read content from outside before writing project memory: ${sources.join(", ")}. Check that the memory holds only what you want Tether to remember.`;
}

/** The prompt for a step that is not a reviewable edit: the full command, host or path. */
export function promptMessage(p: ApprovalRequestParams): { text: string; warn: boolean } {
  let text: string;
  let warn = false;
  switch (p.kind) {
    case ApprovalShell:
      text = `Tether wants to run${shellHow(p)}: ${p.command ?? p.title}`;
      if (p.description) {
        text += ` (for: ${p.description})`;
      }
      warn = true;
      break;
    case ApprovalFetch:
      text = p.url
        ? `Tether wants to fetch ${p.url} (host: ${p.host ?? "?"})`
        : `Tether wants to fetch from ${p.host ?? p.title}`;
      break;
    case ApprovalOutside:
      text = `Tether wants to use ${p.path ?? p.title}, outside the workspace`;
      warn = true;
      break;
    case ApprovalMemory:
      text = `Tether wants to write project memory: ${p.title}`;
      if (untrustedWarning(p)) {
        text += `. ${untrustedWarning(p)}`;
        warn = true;
      }
      break;
    default:
      text = `Tether wants to ${p.title}${p.path ? ` (${p.path})` : ""}`;
      warn = true;
  }
  if (p.from) {
    text += ` (asked by ${p.from} through tether mcp)`;
  }
  if (p.alwaysScope) {
    text += `. “Always” allows ${p.alwaysScope}.`;
  }
  return { text, warn };
}

interface PromptItem extends vscode.QuickPickItem {
  answer: Answer;
}

/** How a command would run, when that is worth a word: outside the sandbox, or with network access. */
export function shellHow(p: ApprovalRequestParams): string {
  if (p.sandbox === false) {
    return " outside the sandbox, with all of your rights";
  }
  return p.network ? " with network access" : "";
}

/** The items of Tether's prompt: Yes, Always (with what it allows, when it is offered), Skip, No. */
export function promptItems(p: ApprovalRequestParams): PromptItem[] {
  return promptChoices
    .filter((c) => c.answer !== AnswerAlways || !!p.alwaysScope)
    .map((c) => ({ label: c.label, description: c.detail(p), answer: c.answer }));
}

/** The lens row at the top of a proposal: the review's answers, labelled. */
export const reviewActions: { title: string; command: string; tip: (p: ApprovalRequestParams) => string }[] = [
  { title: "$(check) Approve", command: "tether.approve", tip: () => "Write the change as it stands in this proposal" },
  {
    title: "$(close) Reject",
    command: "tether.reject",
    tip: () => "Do not write it; the agent stops and asks you how to go on",
  },
  {
    title: "$(check-all) Always",
    command: "tether.approveAlways",
    tip: (p) => `Write it, and from now on allow ${p.alwaysScope || "such changes"}`,
  },
  {
    title: "$(debug-step-over) Skip",
    command: "tether.skip",
    tip: () => "Do not write it; the agent carries on without it",
  },
];

/** The status bar's words for the changes waiting: "Tether: 1 change to review". */
export function reviewStatusText(n: number): string {
  return `$(diff) Tether: ${n} change${n === 1 ? "" : "s"} to review`;
}

export class Approvals implements vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  private readonly prompts = new Set<() => void>();
  private readonly fs = new ProposalFs();
  private readonly originals = new Map<string, string>();
  private readonly lensEmitter = new vscode.EventEmitter<void>();
  private readonly subs: vscode.Disposable[] = [];
  private readonly status: vscode.StatusBarItem;
  private readonly saving = new Set<string>();
  private seq = 0;

  constructor(
    daemon: Daemon,
    private readonly log: vscode.LogOutputChannel,
    /** Asks commands, fetches and paths outside the workspace in the chat. */
    readonly chat: ChatApprovals = new ChatApprovals(),
  ) {
    this.status = vscode.window.createStatusBarItem("tether.review", vscode.StatusBarAlignment.Right, 101);
    this.status.name = "Tether review";
    this.status.command = OpenReviewCommand;
    this.status.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
    daemon.onRequest(approvalRequest, (p: ApprovalRequestParams, token: RpcCancellationToken) => this.handle(p, token));
    this.subs.push(
      daemon.onDidStop(() => this.skipAll()),
      vscode.workspace.registerFileSystemProvider(ProposedScheme, this.fs, { isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(OriginalScheme, {
        provideTextDocumentContent: (uri) => this.originals.get(uri.toString()) ?? "",
      }),
      vscode.languages.registerCodeLensProvider(
        { scheme: ProposedScheme },
        {
          onDidChangeCodeLenses: this.lensEmitter.event,
          provideCodeLenses: (doc) => this.lenses(doc),
        },
      ),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === ProposedScheme) {
          this.lensEmitter.fire();
          this.keepSaved(e.document);
        }
      }),
      // A proposal typed into before the extension host heard that its
      // editor has the keyboard (a click and a paste at once) is saved when
      // it hears.
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e?.document.uri.scheme === ProposedScheme) {
          this.keepSaved(e.document);
        }
      }),
      vscode.window.tabGroups.onDidChangeTabs((e) => this.tabsClosed(e.closed)),
    );
  }

  handle(p: ApprovalRequestParams, token: RpcCancellationToken): Promise<ApprovalRequestResult> {
    if ((p.files ?? []).length > 0) {
      return this.reviewSet(p, token);
    }
    if (isReviewable(p)) {
      return this.review(p, token);
    }
    return this.chat.canAsk(p) ? this.askInChat(p, token) : this.prompt(p, token);
  }

  /** Asks in the chat, in the flow of the call that needs the approval (confirm.ts). */
  private async askInChat(p: ApprovalRequestParams, token: RpcCancellationToken): Promise<ApprovalRequestResult> {
    const cts = new vscode.CancellationTokenSource();
    const cancelled = () => cts.cancel();
    this.prompts.add(cancelled);
    const sub = token.onCancellationRequested(cancelled);
    try {
      const answer = await this.chat.ask(p, cts.token);
      this.log.info(`approval ${p.title}: ${answer} (in the chat)`);
      return { answer };
    } finally {
      sub.dispose();
      this.prompts.delete(cancelled);
      cts.dispose();
    }
  }

  /** The edits waiting for review, for tests and the commands. */
  get reviews(): EditReview[] {
    return [...this.pending.values()].map((x) => x.review);
  }

  private review(p: ApprovalRequestParams, token: RpcCancellationToken): Promise<ApprovalRequestResult> {
    const review = new EditReview(String(++this.seq), p, this.fs);
    const warning = untrustedWarning(p);
    if (warning) {
      void vscode.window.showWarningMessage(warning);
    }
    return this.awaitAnswer(
      p,
      token,
      [review],
      undefined,
      () => {
        void this.close(review);
      },
      () =>
        review.open().catch((e: unknown) => {
          this.log.error(`could not open the review of ${p.path}: ${errorText(e)}`);
          void this.remind(review);
        }),
    );
  }

  /**
   * A change set (what a command wrote) is reviewed as one: every file in
   * one multi-file diff, each with its hunks, the answer for them all.
   */
  private reviewSet(p: ApprovalRequestParams, token: RpcCancellationToken): Promise<ApprovalRequestResult> {
    const set = new SetReview(String(++this.seq), p, this.fs);
    return this.awaitAnswer(
      p,
      token,
      set.files,
      set,
      () => {
        for (const r of set.files) {
          void this.close(r);
        }
        void this.closeSet(set);
      },
      () =>
        set.open().catch((e: unknown) => {
          this.log.error(`could not open the review of ${p.title}: ${errorText(e)}`);
        }),
    );
  }

  /**
   * Waits for the answer to a review of one file or of a change set: its
   * files are pending under their proposals until the first answer, or
   * the daemon's cancel (a skip), settles it; then close puts the review
   * away. open shows it once it is pending.
   */
  private awaitAnswer(
    p: ApprovalRequestParams,
    token: RpcCancellationToken,
    reviews: EditReview[],
    set: SetReview | undefined,
    close: () => void,
    open: () => Promise<void>,
  ): Promise<ApprovalRequestResult> {
    for (const r of reviews) {
      this.originals.set(r.originalUri.toString(), r.original);
    }
    return new Promise((resolve) => {
      let done = false;
      const finish = (result: ApprovalRequestResult) => {
        if (done) {
          return;
        }
        done = true;
        for (const r of reviews) {
          this.pending.delete(r.proposedUri.toString());
        }
        close();
        this.log.info(`approval ${p.title}: ${result.answer}`);
        resolve(result);
      };
      for (const r of reviews) {
        this.pending.set(r.proposedUri.toString(), { review: r, set, finish });
      }
      this.updateContext();
      token.onCancellationRequested(() => finish({ answer: AnswerSkip }));
      void open();
    });
  }

  /**
   * Closes the multi-file diff of an answered change set: its tab, found by
   * the title it was opened with (the API names no input type for it).
   */
  private async closeSet(set: SetReview): Promise<void> {
    try {
      for (const group of vscode.window.tabGroups.all) {
        for (const tab of group.tabs) {
          // VS Code adds the count of files to the label: "<title> (2 files)".
          if (tab.label === set.title || tab.label.startsWith(`${set.title} (`)) {
            await vscode.window.tabGroups.close(tab, true);
          }
        }
      }
    } catch (e) {
      this.log.warn(`closing the review of a change set: ${errorText(e)}`);
    }
  }

  /** Leaves a file of a change set out, or takes it back in. */
  toggleFile(target: vscode.Uri | string | undefined): void {
    const entry = this.find(typeof target === "string" ? vscode.Uri.parse(target) : target);
    if (entry?.set) {
      entry.set.toggleFile(entry.review.params.path ?? "");
      this.lensEmitter.fire();
    }
  }

  /**
   * Tether's own prompt, for what the chat's confirmation did not answer:
   * a quick pick at the top of the window that takes the keyboard and stays
   * until answered (Escape skips), never a toast in the corner.
   */
  private async prompt(p: ApprovalRequestParams, token: RpcCancellationToken): Promise<ApprovalRequestResult> {
    const { text } = promptMessage(p);
    const qp = vscode.window.createQuickPick<PromptItem>();
    qp.title = text.replace(/\. “Always” allows .*$/, "");
    qp.placeholder = "Tether asks before it goes on: pick an answer";
    qp.items = promptItems(p);
    qp.ignoreFocusOut = true;
    qp.matchOnDescription = true;
    let cancelled!: () => void;
    const cancel = new Promise<undefined>((resolve) => (cancelled = () => resolve(undefined)));
    this.prompts.add(cancelled);
    const sub = token.onCancellationRequested(cancelled);
    try {
      const picked = new Promise<PromptItem | undefined>((resolve) => {
        qp.onDidAccept(() => resolve(qp.selectedItems[0]));
        qp.onDidHide(() => resolve(undefined));
      });
      qp.show();
      const choice = await Promise.race([picked, cancel]);
      const result: ApprovalRequestResult = { answer: choice ? choice.answer : AnswerSkip };
      this.log.info(`approval ${p.title}: ${result.answer}`);
      return result;
    } finally {
      sub.dispose();
      this.prompts.delete(cancelled);
      qp.hide();
      qp.dispose();
    }
  }

  /** Shows the change waiting for review (the first, when several wait). */
  async openReview(): Promise<void> {
    const entry = this.find(undefined) ?? [...this.pending.values()].at(0);
    if (!entry) {
      void vscode.window.showInformationMessage("No Tether change is waiting for review.");
      return;
    }
    await (entry.set ? entry.set.open(false) : entry.review.open(false));
  }

  /**
   * Answers the review shown in target (the diff's proposed side), else the
   * one in the active editor, else the only one waiting.
   */
  answer(answer: Answer, target?: vscode.Uri): boolean {
    const entry = this.find(target);
    if (!entry) {
      void vscode.window.showInformationMessage("No Tether change is waiting for review.");
      return false;
    }
    entry.finish(entry.set ? entry.set.answer(answer) : entry.review.answer(answer));
    return true;
  }

  async toggleHunk(target: vscode.Uri | string | undefined, id: number): Promise<void> {
    const entry = this.find(typeof target === "string" ? vscode.Uri.parse(target) : target);
    if (!entry) {
      return;
    }
    if (entry.review.editedText() !== undefined) {
      const replace = "Replace My Edits";
      const ok = await vscode.window.showWarningMessage(
        "Keeping or dropping a hunk rebuilds the proposal and replaces what you typed into it.",
        { modal: true },
        replace,
      );
      if (ok !== replace) {
        return;
      }
    }
    // The lenses flip at once; the text follows when the editor has
    // reloaded the proposal.
    const shown = entry.review.toggle(id);
    this.lensEmitter.fire();
    await shown;
    this.lensEmitter.fire();
  }

  async resetProposal(target?: vscode.Uri | string): Promise<void> {
    const entry = this.find(typeof target === "string" ? vscode.Uri.parse(target) : target);
    await entry?.review.reset();
    this.lensEmitter.fire();
  }

  private find(target: vscode.Uri | undefined): Pending | undefined {
    const tried = [target, vscode.window.activeTextEditor?.document.uri];
    for (const uri of tried) {
      const hit = uri && this.pending.get(uri.toString());
      if (hit) {
        return hit;
      }
    }
    const distinct = this.distinct();
    return distinct.length === 1 ? distinct[0] : undefined;
  }

  /** The approvals waiting, a change set once however many files it has. */
  private distinct(): Pending[] {
    const seen = new Set<Pending["finish"]>();
    return [...this.pending.values()].filter((e) => !seen.has(e.finish) && seen.add(e.finish));
  }

  private lenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const entry = this.pending.get(doc.uri.toString());
    if (!entry) {
      return [];
    }
    const top = new vscode.Range(0, 0, 0, 0);
    const actions = reviewActions.map(
      (a) =>
        new vscode.CodeLens(top, {
          title: a.title,
          command: a.command,
          tooltip: a.tip(entry.review.params),
          arguments: [doc.uri.toString()],
        }),
    );
    if (entry.set) {
      const left = entry.set.left.has(entry.review.params.path ?? "");
      const n = entry.set.files.length;
      for (const lens of actions) {
        if (lens.command) {
          lens.command.tooltip = `${lens.command.tooltip ?? ""} (all ${n} file${n === 1 ? "" : "s"} of this change)`;
        }
      }
      actions.push(
        new vscode.CodeLens(top, {
          title: left ? "$(add) Take this file back in (left out)" : "$(remove) Leave this file out",
          command: "tether.toggleFile",
          tooltip: left
            ? "Apply the command's change to this file with the rest"
            : "Keep this file as it is; apply the rest",
          arguments: [doc.uri.toString()],
        }),
      );
      if (left) {
        return actions;
      }
    }
    const edited = entry.review.firstEditedLine();
    if (edited !== undefined) {
      // Above the user's first change, where they are looking.
      const at = new vscode.Range(edited, 0, edited, 0);
      return [
        ...actions,
        new vscode.CodeLens(at, { title: "$(edit) Edited by you: approving writes this text", command: "" }),
        new vscode.CodeLens(at, {
          title: "Undo my edits",
          command: "tether.resetProposal",
          arguments: [doc.uri.toString()],
        }),
      ];
    }
    const places = entry.review.places();
    return [
      ...actions,
      ...places.map((p, i) => {
        const n = `${i + 1}/${places.length}`;
        const title = p.kept ? `$(close) Drop hunk ${n}` : `$(check) Keep hunk ${n} (dropped)`;
        return new vscode.CodeLens(new vscode.Range(p.line, 0, p.line, 0), {
          title,
          command: "tether.toggleHunk",
          arguments: [doc.uri.toString(), p.id],
        });
      }),
    ];
  }

  /**
   * Keeps what the user types into a proposal saved (to memory), so the
   * editor never counts it among the workspace's unsaved files. It is saved
   * without formatting: save participants must not rewrite a proposal. That
   * command saves the active editor only, so a proposal whose editor is not
   * (yet) the active one waits for it to be (onDidChangeActiveTextEditor);
   * typing needs the keyboard, so it will be.
   */
  private keepSaved(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    if (!doc.isDirty || this.saving.has(key) || !this.pending.has(key)) {
      return;
    }
    this.saving.add(key);
    setTimeout(() => {
      this.saving.delete(key);
      if (!doc.isDirty || doc.isClosed) {
        return;
      }
      const active = vscode.window.activeTextEditor?.document.uri.toString() === key;
      const save = active
        ? vscode.commands.executeCommand("workbench.action.files.saveWithoutFormatting")
        : Promise.resolve();
      void Promise.resolve(save).catch((e: unknown) => this.log.debug(`saving the proposal: ${errorText(e)}`));
    }, 0);
  }

  /** Saves the proposal (so closing asks nothing), closes its diff, forgets it. */
  private async close(review: EditReview): Promise<void> {
    this.updateContext();
    try {
      const doc = review.document();
      if (doc?.isDirty) {
        await doc.save();
      }
      // Every tab of the proposal goes: its review diff, and a plain tab a
      // search result or "Open File" opened on it, where typing would
      // leave an unsaved file that can never be saved.
      const key = review.proposedUri.toString();
      for (const group of vscode.window.tabGroups.all) {
        for (const tab of group.tabs) {
          const input = tab.input;
          if (
            (input instanceof vscode.TabInputTextDiff && input.modified.toString() === key) ||
            (input instanceof vscode.TabInputText && input.uri.toString() === key)
          ) {
            await vscode.window.tabGroups.close(tab, true);
          }
        }
      }
    } catch (e) {
      this.log.warn(`closing the review: ${errorText(e)}`);
    } finally {
      this.fs.remove(review.proposedUri);
      this.originals.delete(review.originalUri.toString());
      this.lensEmitter.fire();
    }
  }

  /**
   * A review tab closed without an answer (a preview tab is replaced by the
   * next file the user opens). The change still waits: say so, and let
   * dismissing the reminder be the skip it would be in a prompt.
   */
  private tabsClosed(closed: readonly vscode.Tab[]): void {
    for (const tab of closed) {
      if (tab.input instanceof vscode.TabInputTextDiff) {
        const entry = this.pending.get(tab.input.modified.toString());
        if (entry) {
          void this.remind(entry.review);
        }
      }
    }
  }

  private async remind(review: EditReview): Promise<void> {
    const key = review.proposedUri.toString();
    const choice = await vscode.window.showInformationMessage(
      `Tether's change to ${review.params.path ?? "a file"} is waiting for your review: ${review.params.title}.`,
      "Review",
      "Approve",
      "Skip",
    );
    const entry = this.pending.get(key);
    if (!entry) {
      return;
    }
    if (choice === "Review") {
      await review.open();
    } else if (choice === "Approve") {
      entry.finish(entry.set ? entry.set.answer(AnswerYes) : review.answer(AnswerYes));
    } else {
      entry.finish({ answer: AnswerSkip });
    }
  }

  /** Answers every open approval with skip: the daemon went away, or we are. */
  skipAll(): void {
    for (const entry of this.distinct()) {
      entry.finish({ answer: AnswerSkip });
    }
    for (const cancel of [...this.prompts]) {
      cancel();
    }
  }

  private updateContext(): void {
    const n = this.distinct().length;
    void vscode.commands.executeCommand("setContext", ReviewingContext, n > 0);
    if (n > 0) {
      this.status.text = reviewStatusText(n);
      this.status.tooltip = `${this.distinct()
        .map((e) => (e.set ?? e.review).params.title)
        .join("\n")}\n\nClick to show it.`;
      this.status.show();
    } else {
      this.status.hide();
    }
  }

  dispose(): void {
    this.skipAll();
    this.status.dispose();
    this.lensEmitter.dispose();
    for (const s of this.subs) {
      s.dispose();
    }
  }
}
