// dryRun mode stages file changes as diffs instead of writing them. These
// commands review them, then apply or drop them, one or all.

import * as vscode from "vscode";

import type { Daemon } from "./daemon";
import type { InfoDocuments } from "./infoDocuments";
import { stagedApply, stagedDrop, stagedList, StagedApplyResult, StagedChange, StagedParams } from "./protocol";

type Pick = vscode.QuickPickItem & { change?: StagedChange; all?: "apply" | "drop" };

export function stagedItem(c: StagedChange): Pick {
  return {
    label: c.title || c.tool,
    description: `${c.tool} · ${new Date(c.created).toLocaleString()}`,
    detail: (c.files ?? []).join(", "),
    change: c,
  };
}

/** What staged/apply did, in one line, and whether anything failed. */
export function describeApply(r: StagedApplyResult): { text: string; ok: boolean } {
  const applied = r.applied ?? [];
  const failed = r.failed ?? [];
  let text = `Tether applied ${applied.length} staged change${applied.length === 1 ? "" : "s"}`;
  if (failed.length > 0) {
    text += `; ${failed.length} could not be applied: ${failed.map((f) => `${f.id} (${f.reason})`).join("; ")}`;
  }
  return { text: text + ".", ok: failed.length === 0 };
}

async function apply(daemon: Daemon, ids?: string[]): Promise<void> {
  const params: StagedParams = ids ? { ids } : {};
  const { text, ok } = describeApply(await daemon.request(stagedApply, params));
  void (ok ? vscode.window.showInformationMessage(text) : vscode.window.showWarningMessage(text));
}

async function drop(daemon: Daemon, ids?: string[]): Promise<void> {
  const params: StagedParams = ids ? { ids } : {};
  const r = await daemon.request(stagedDrop, params);
  const n = (r.dropped ?? []).length;
  void vscode.window.showInformationMessage(`Tether dropped ${n} staged change${n === 1 ? "" : "s"}.`);
}

export async function reviewStaged(daemon: Daemon, docs: InfoDocuments): Promise<void> {
  const list = await daemon.request(stagedList, {});
  const staged = list.staged ?? [];
  if (staged.length === 0) {
    void vscode.window.showInformationMessage(
      "Tether has no staged changes (they are made in the dryRun permission mode).",
    );
    return;
  }
  const items: Pick[] = [
    ...staged.map(stagedItem),
    { label: "", kind: vscode.QuickPickItemKind.Separator },
    { label: `$(check-all) Apply all ${staged.length}`, all: "apply" },
    { label: `$(trash) Drop all ${staged.length}…`, all: "drop" },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: "Tether: staged changes",
    placeHolder: "Pick one to see its diff",
    matchOnDetail: true,
  });
  if (!picked) {
    return;
  }
  if (picked.all === "apply") {
    return apply(daemon);
  }
  if (picked.all === "drop") {
    const dropAll = "Drop All";
    const ok = await vscode.window.showWarningMessage(
      `Drop all ${staged.length} staged changes? They will not be written.`,
      { modal: true },
      dropAll,
    );
    return ok === dropAll ? drop(daemon) : undefined;
  }
  const c = picked.change;
  if (!c) {
    return; // the separator
  }
  await docs.show(`staged-${c.id}.diff`, c.diff || "(no diff)\n");
  const choice = await vscode.window.showInformationMessage(
    `“${c.title}”: apply it to the files, or drop it?`,
    "Apply",
    "Drop",
  );
  if (choice === "Apply") {
    await apply(daemon, [c.id]);
  } else if (choice === "Drop") {
    await drop(daemon, [c.id]);
  }
}
