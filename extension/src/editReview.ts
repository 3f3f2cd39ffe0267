// One edit under review: the original and proposed texts behind the diff
// editor, which hunks the user dropped, and whether they typed into it.

import * as path from "node:path";
import * as vscode from "vscode";

import { Answer, HunkPlace, compose, editAnswer } from "./hunks";
import { OriginalScheme, ProposedScheme } from "./names";
import type { ProposalFs } from "./proposalFs";
import { ApprovalMemory } from "./protocol";
import type { ApprovalRequestParams, ApprovalRequestResult, Hunk } from "./protocol";

export class EditReview {
  readonly original: string;
  readonly proposed: string;
  readonly originalUri: vscode.Uri;
  readonly proposedUri: vscode.Uri;
  readonly dropped = new Set<number>();
  /** The proposal as the hunk choices make it. */
  private generated: string;
  /**
   * The document's text as we last set it. VS Code may normalise what it
   * loads (line endings, a BOM), so the user's typing is told apart by
   * comparing with this, never with the raw proposal.
   */
  private shown: string | undefined;
  /** Rewrites of the proposal under way. */
  private showing = 0;

  constructor(
    key: string,
    readonly params: ApprovalRequestParams,
    private readonly fs: ProposalFs,
  ) {
    this.original = params.original ?? "";
    this.proposed = params.proposed ?? "";
    this.generated = this.proposed;
    const name = path.basename(params.path ?? "") || "proposal";
    this.originalUri = vscode.Uri.from({ scheme: OriginalScheme, path: `/${key}/${name}` });
    this.proposedUri = vscode.Uri.from({ scheme: ProposedScheme, path: `/${key}/${name}` });
    fs.set(this.proposedUri, this.proposed);
  }

  get hunks(): readonly Hunk[] {
    return this.params.hunks ?? [];
  }

  /**
   * The diff's title says what it is: a change waiting for the user's
   * review, and who asks when it is not this editor's chat (an MCP client
   * through tether mcp).
   */
  get title(): string {
    const name = path.basename(this.params.path ?? "") || "proposal";
    const from = this.params.from ? ` (from ${this.params.from})` : "";
    if (this.params.kind === ApprovalMemory) {
      return `Review Tether's memory change: ${name}${from}`;
    }
    return `Review Tether's change: ${name}${from}`;
  }

  /**
   * Opens the diff. Opened by the agent, it never takes the keyboard from
   * the user (preserveFocus); opened by the user, it does.
   */
  async open(preserveFocus = true): Promise<void> {
    await this.load();
    await vscode.commands.executeCommand("vscode.diff", this.originalUri, this.proposedUri, this.title, {
      preview: true,
      preserveFocus,
    });
  }

  /** Opens the proposal's document, and notes its text as first shown. */
  async load(): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(this.proposedUri);
    this.shown ??= doc.getText();
  }

  document(): vscode.TextDocument | undefined {
    const key = this.proposedUri.toString();
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
  }

  /** The user's own text, if they typed into the proposal; else undefined. */
  editedText(): string | undefined {
    const doc = this.document();
    if (!doc || this.shown === undefined || this.showing > 0) {
      // While the proposal is being rewritten, its text is Tether's.
      return undefined;
    }
    const text = doc.getText();
    return text === this.shown ? undefined : text;
  }

  /** The first line (0-based) where the user's text differs from the proposal shown, if they typed. */
  firstEditedLine(): number | undefined {
    const text = this.editedText();
    if (text === undefined || this.shown === undefined) {
      return undefined;
    }
    const a = text.split("\n");
    const b = this.shown.split("\n");
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) {
      i++;
    }
    return Math.min(i, a.length - 1);
  }

  places(): HunkPlace[] {
    return compose(this.original, this.proposed, this.hunks, this.dropped).places;
  }

  /** Keeps a dropped hunk or drops a kept one, and shows the result. */
  async toggle(id: number): Promise<void> {
    if (!this.hunks.some((h) => h.id === id)) {
      return;
    }
    if (this.dropped.has(id)) {
      this.dropped.delete(id);
    } else {
      this.dropped.add(id);
    }
    await this.show(compose(this.original, this.proposed, this.hunks, this.dropped).text);
  }

  /** Puts the proposal back as the hunk choices make it, dropping the user's typing. */
  async reset(): Promise<void> {
    await this.show(this.generated);
  }

  /**
   * Shows text as the proposal. It goes through the proposal's file system,
   * which the editor reloads the document from: the document is never left
   * with unsaved changes, which the editor would count among the
   * workspace's unsaved files. Typing the user has not saved yet is
   * replaced in the buffer instead.
   */
  private async show(text: string): Promise<void> {
    this.showing++;
    try {
      await this.rewrite(text);
    } finally {
      this.showing--;
    }
  }

  private async rewrite(text: string): Promise<void> {
    this.generated = text;
    const doc = this.document();
    if (doc?.isDirty) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(this.proposedUri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
      await vscode.workspace.applyEdit(edit);
      this.shown = doc.getText();
      return;
    }
    const reloaded = doc && doc.getText() !== text ? nextChange(doc, 5000) : Promise.resolve();
    this.fs.set(this.proposedUri, text);
    await reloaded;
    if (doc) {
      this.shown = doc.getText();
    }
  }

  answer(answer: Answer): ApprovalRequestResult {
    return editAnswer(answer, this.hunks, this.dropped, this.editedText());
  }
}

/** Resolves at the document's next change, or after ms: a reload from its file system. */
function nextChange(doc: vscode.TextDocument, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    };
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document === doc) {
        done();
      }
    });
    const timer = setTimeout(done, ms);
  });
}
