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

  constructor(
    key: string,
    readonly params: ApprovalRequestParams,
    private readonly fs: ProposalFs,
  ) {
    this.original = params.original ?? "";
    this.proposed = params.proposed ?? "";
    this.generated = this.proposed;
    const name = path.basename(params.path || "proposal");
    this.originalUri = vscode.Uri.from({ scheme: OriginalScheme, path: `/${key}/${name}` });
    this.proposedUri = vscode.Uri.from({ scheme: ProposedScheme, path: `/${key}/${name}` });
    fs.set(this.proposedUri, this.proposed);
  }

  get hunks(): readonly Hunk[] {
    return this.params.hunks ?? [];
  }

  get title(): string {
    const name = path.basename(this.params.path || "proposal");
    if (this.params.kind === ApprovalMemory) {
      return `memory ${name} ↔ Tether's proposal`;
    }
    return `${name} ↔ Tether's proposal`;
  }

  /** Opens the diff beside the user's work, never taking the keyboard from them. */
  async open(): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(this.proposedUri);
    this.shown = doc.getText();
    await vscode.commands.executeCommand("vscode.diff", this.originalUri, this.proposedUri, this.title, {
      preview: true,
      preserveFocus: true,
    });
  }

  document(): vscode.TextDocument | undefined {
    const key = this.proposedUri.toString();
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
  }

  /** The user's own text, if they typed into the proposal; else undefined. */
  editedText(): string | undefined {
    const doc = this.document();
    if (!doc || this.shown === undefined) {
      return undefined;
    }
    const text = doc.getText();
    return text === this.shown ? undefined : text;
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

  private async show(text: string): Promise<void> {
    this.generated = text;
    const doc = this.document();
    if (!doc) {
      this.fs.set(this.proposedUri, text);
      return;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(this.proposedUri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
    await vscode.workspace.applyEdit(edit);
    this.shown = doc.getText();
  }

  answer(answer: Answer): ApprovalRequestResult {
    return editAnswer(answer, this.hunks, this.dropped, this.editedText());
  }
}
