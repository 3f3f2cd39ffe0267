// A change set under review: what a command wrote, several files answered
// as one. Each file is an EditReview of its own (its hunks kept or dropped,
// the user's typing), shown together in VS Code's multi-file diff; the
// answer is for the whole set, with each file's part of it.

import * as path from "node:path";
import * as vscode from "vscode";

import { EditReview } from "./editReview";
import type { Answer } from "./hunks";
import type { ProposalFs } from "./proposalFs";
import type { ApprovalRequestParams, ApprovalRequestResult, FileAnswer, FileChange } from "./protocol";

/** What a file of a set shows when it has no text to compare: its note, on the proposed side. */
export function noteText(f: FileChange): string {
  return `(${f.note ?? f.status})\n`;
}

export class SetReview {
  /** One review per file, in the daemon's order. */
  readonly files: EditReview[];
  /** Files the user left out: paths. */
  readonly left = new Set<string>();
  /** Files shown by their note (binary, too large, a link, a folder): paths. */
  private readonly textless = new Set<string>();

  constructor(
    key: string,
    readonly params: ApprovalRequestParams,
    fs: ProposalFs,
  ) {
    this.files = (params.files ?? []).map((f, i) => {
      const text = f.original !== undefined || f.proposed !== undefined;
      if (!text) {
        this.textless.add(f.path);
      }
      const one: ApprovalRequestParams = {
        ...params,
        files: undefined,
        path: f.path,
        diff: f.diff,
        original: text ? (f.original ?? "") : "",
        proposed: text ? (f.proposed ?? "") : noteText(f),
        hunks: text ? f.hunks : [],
        title: `${params.title}: ${path.basename(f.path)}`,
      };
      return new EditReview(`${key}-${i}`, one, fs);
    });
  }

  /** The file's review whose proposal is uri, if it is one of the set's. */
  fileOf(uri: vscode.Uri | string): EditReview | undefined {
    const key = uri.toString();
    return this.files.find((r) => r.proposedUri.toString() === key);
  }

  /**
   * The change set's title in the multi-file diff. VS Code's multi-file
   * diff adds its own count of the files, so the daemon's is left out.
   */
  get title(): string {
    return `Review Tether's changes: ${this.params.title.replace(/ \(\d+ files?\)$/, "")}`;
  }

  /**
   * Shows every file of the set in one multi-file diff. Opened by the
   * agent it never takes the keyboard; the first file also opens alone, so
   * that an editor without the multi-file diff still shows the review.
   */
  async open(preserveFocus = true): Promise<void> {
    const resources = this.files.map((r) => [vscode.Uri.file(r.params.path ?? ""), r.originalUri, r.proposedUri]);
    for (const r of this.files) {
      await r.load();
    }
    try {
      await vscode.commands.executeCommand("vscode.changes", this.title, resources);
    } catch {
      await this.files[0]?.open(preserveFocus);
    }
  }

  /** Leaves a file out of the set, or takes it back in. */
  toggleFile(p: string): void {
    if (this.left.has(p)) {
      this.left.delete(p);
    } else {
      this.left.add(p);
    }
  }

  /**
   * The answer for the set. Skip and no carry nothing; yes and always name
   * each file the user left out, or kept only some hunks of, or typed into.
   */
  answer(answer: Answer): ApprovalRequestResult {
    if (answer === "skip" || answer === "no") {
      return { answer };
    }
    const files: FileAnswer[] = [];
    for (const r of this.files) {
      const p = r.params.path ?? "";
      if (this.left.has(p)) {
        files.push({ path: p, skip: true });
        continue;
      }
      if (this.textless.has(p)) {
        continue; // shown by its note: nothing in it to keep or drop
      }
      const one = r.answer(answer);
      if (one.hunks !== undefined || one.content !== undefined) {
        files.push({ path: p, hunks: one.hunks, content: one.content });
      }
    }
    return files.length > 0 ? { answer, files } : { answer };
  }
}
