// Undo from the command palette: the last request, or any checkpoint
// after looking at its diff.

import * as vscode from "vscode";

import type { Daemon } from "./daemon";
import type { InfoDocuments } from "./infoDocuments";
import type { RequestEntry, RequestLog } from "./requestLog";
import { Checkpoint, undoList, undoShow, undoUndo, UndoParams, UndoResult } from "./protocol";

/** One line for the notification, and the full story for "Show details". */
export function describeUndo(r: UndoResult): { summary: string; details: string; clean: boolean } {
  const restored = r.restored ?? [];
  const conflicts = r.conflicts ?? [];
  const replaced = r.replaced ?? [];
  const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;
  let summary = restored.length > 0 ? `Tether restored ${files(restored.length)}` : "Tether restored no files";
  if (conflicts.length > 0) {
    const one = conflicts.length === 1;
    summary += `; ${files(conflicts.length)} changed since Tether wrote ${one ? "it" : "them"} and ${one ? "was" : "were"} left alone`;
  }
  if (r.damaged) {
    summary += "; part of the checkpoint's record is damaged (see the details)";
  }
  const lines = [`# Undo of checkpoint ${r.id}`, ""];
  if (r.damaged) {
    lines.push("## Damaged record", "", damageSentence(r.damaged, "This checkpoint's"), "");
  }
  if (restored.length > 0) {
    lines.push("## Restored", "", ...restored.map((p) => `- ${p}`), "");
  }
  if (conflicts.length > 0) {
    lines.push(
      "## Left alone",
      "",
      "These files changed after Tether wrote them, so undo did not overwrite them. The checkpoint still holds their earlier content.",
      "",
      ...conflicts.map((c) => `- ${c.path}: ${c.reason}`),
      "",
    );
  }
  if (replaced.length > 0) {
    lines.push(
      "## Restored over content Tether had not confirmed writing",
      "",
      "What these files held before the undo is kept in the checkpoint (Tether: Show Checkpoints).",
      "",
      ...replaced.map((p) => `- ${p}`),
      "",
    );
  }
  return {
    summary: summary + ".",
    details: lines.join("\n"),
    clean: conflicts.length === 0 && replaced.length === 0 && !r.damaged,
  };
}

export async function undo(daemon: Daemon, docs: InfoDocuments, id?: string): Promise<void> {
  const params: UndoParams = id ? { id } : {};
  const r = await daemon.request(undoUndo, params);
  const { summary, details, clean } = describeUndo(r);
  const show = clean ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  const choice = await show(summary, "Show details");
  if (choice === "Show details") {
    await docs.show("Undo details.md", details);
  }
}

/** The daemon's damage note ("its record is damaged: …") as a sentence whose subject is the checkpoint. */
function damageSentence(damaged: string, subject = "Its"): string {
  const s = damaged.replace(/^its /, `${subject} `);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** "just now", "5 minutes ago", "yesterday", "3 days ago": how long ago t was. */
export function relativeTime(t: number, now: number = Date.now()): string {
  const s = Math.round((now - t) / 1000);
  if (!Number.isFinite(s)) {
    return "";
  }
  if (s < 45) {
    return "just now";
  }
  const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  const steps: [number, Intl.RelativeTimeFormatUnit][] = [
    [60, "minute"],
    [3600, "hour"],
    [86400, "day"],
    [7 * 86400, "week"],
    [30 * 86400, "month"],
    [365 * 86400, "year"],
  ];
  let unit: Intl.RelativeTimeFormatUnit = "minute";
  let size = 60;
  for (const [secs, u] of steps) {
    if (s >= secs * 0.75) {
      unit = u;
      size = secs;
    }
  }
  return rtf.format(-Math.max(1, Math.round(s / size)), unit);
}

/** "greet.txt +2 −2": a file and the lines its request added and removed, when known. */
function fileWithCounts(file: string, counts: RequestEntry["files"] | undefined): string {
  const c =
    counts?.[file] ?? Object.entries(counts ?? {}).find(([k]) => file.endsWith(`/${k}`) || k.endsWith(`/${file}`))?.[1];
  return c ? `${file} +${c.added} −${c.removed}` : file;
}

export function checkpointItem(
  c: Checkpoint,
  entry?: RequestEntry,
  now: number = Date.now(),
): vscode.QuickPickItem & { id: string } {
  const files = c.files ?? [];
  const when = relativeTime(Date.parse(c.created), now);
  const from = entry?.calls.length ? ` · ${entry.calls.join(", ")}` : "";
  const icon = c.damaged || (c.interrupted && !c.undone) ? "$(warning)" : c.undone ? "$(discard)" : "$(history)";
  // The daemon names a checkpoint it could not read whole "damaged: …"
  // itself; the label says it only where the summary does not.
  const saysDamaged = c.damaged && !/^damaged\b/.test(c.summary);
  const state = [c.undone ? "undone" : "", saysDamaged ? "damaged" : ""].filter(Boolean).join(", ");
  const listed = files.map((f) => fileWithCounts(f, entry?.files)).join(", ");
  return {
    id: c.id,
    label: `${icon} ${c.summary || c.id}${state ? ` (${state})` : ""}`,
    description: `${when}${from}`,
    // The damage says what undo can and cannot put back: the user needs
    // it before choosing to undo, not after.
    detail: [listed, c.damaged ? damageSentence(c.damaged) : "", c.interrupted && !c.undone ? `${c.interrupted}.` : ""]
      .filter(Boolean)
      .join(" · "),
  };
}

export async function showCheckpoints(daemon: Daemon, docs: InfoDocuments, requests?: RequestLog): Promise<void> {
  const list = await daemon.request(undoList, {});
  const checkpoints = list.checkpoints ?? [];
  if (checkpoints.length === 0) {
    void vscode.window.showInformationMessage("Tether has no checkpoints for this workspace yet.");
    return;
  }
  const picked = await vscode.window.showQuickPick(
    checkpoints.map((c) => checkpointItem(c, requests?.get(c.requestId))),
    {
      title: "Tether checkpoints: one per chat request, newest first",
      placeHolder: "Pick a request to see what it changed",
      matchOnDescription: true,
      matchOnDetail: true,
    },
  );
  if (!picked) {
    return;
  }
  const shown = await daemon.request(undoShow, { id: picked.id });
  await docs.show(`checkpoint-${picked.id}.diff`, shown.diff || "(no changes recorded)\n");
  const cp = checkpoints.find((c) => c.id === picked.id);
  if (cp && !cp.undone) {
    const choice = cp.damaged
      ? await vscode.window.showWarningMessage(
          `Undo “${cp.summary || cp.id}”? ${damageSentence(cp.damaged)}`,
          "Undo this request",
        )
      : await vscode.window.showInformationMessage(`Undo “${cp.summary || cp.id}”?`, "Undo this request");
    if (choice === "Undo this request") {
      await undo(daemon, docs, cp.id);
    }
  }
}
