// The saved "always" answers: review them, or forget them all.

import * as fs from "node:fs";
import * as vscode from "vscode";

import type { Daemon } from "./daemon";
import type { InfoDocuments } from "./infoDocuments";
import {
  MethodPermissionsList,
  MethodPermissionsReset,
  PermissionRule,
  PermissionsListResult,
  PermissionsResetResult,
} from "./protocol";

/** A rule in words: the daemon's own description, or the same built here. */
export function describeRule(r: PermissionRule): string {
  if (r.description) {
    return r.description;
  }
  switch (r.kind) {
    case "shell":
      return `always run ${r.program ?? "?"}`;
    case "fetch":
      return `always fetch from ${r.host ?? "?"}`;
    case "outside":
      return `always use files in ${r.dir ?? "?"}`;
    case "edit":
      return "always change files inside the workspace";
    case "memory":
      return "always write project memory";
  }
  return `always ${r.kind}`;
}

type Action = "reset" | "open";

export async function reviewPermissions(daemon: Daemon, docs: InfoDocuments): Promise<void> {
  const res = await daemon.request<PermissionsListResult>(MethodPermissionsList, {});
  const rules = res.rules ?? [];
  const items: (vscode.QuickPickItem & { action?: Action })[] = rules.map((r) => ({
    label: `$(pass) ${describeRule(r)}`,
    description: r.added ? `since ${new Date(r.added).toLocaleDateString()}` : undefined,
  }));
  items.push({ label: "", kind: vscode.QuickPickItemKind.Separator }, { label: "$(file) Open the saved answers", description: res.path, action: "open" });
  if (rules.length > 0) {
    items.push({ label: "$(trash) Forget all of them…", action: "reset" });
  }
  const count = rules.length === 0 ? "nothing is allowed always: Tether asks every time" : `${rules.length} saved answer${rules.length === 1 ? "" : "s"}`;
  const picked = await vscode.window.showQuickPick(items, {
    title: "Tether: what “Always” allows in this project",
    placeHolder: `Mode ${res.mode || "default"}; ${count}`,
  });
  if (picked?.action === "reset") {
    await resetPermissions(daemon);
  } else if (picked?.action === "open") {
    if (res.path && fs.existsSync(res.path)) {
      await vscode.window.showTextDocument(vscode.Uri.file(res.path), { preview: true });
    } else {
      const lines = ["# What “Always” allows in this project", "", `Permission mode: ${res.mode || "default"}`, "", ...rules.map((r) => `- ${describeRule(r)}`), ""];
      await docs.show("Tether permissions.md", lines.join("\n"));
    }
  }
}

export async function resetPermissions(daemon: Daemon): Promise<void> {
  const forget = "Forget All";
  const ok = await vscode.window.showWarningMessage(
    "Forget every “Always” answer saved for this project? Tether will ask again for each command, host and folder.",
    { modal: true },
    forget,
  );
  if (ok !== forget) {
    return;
  }
  const res = await daemon.request<PermissionsResetResult>(MethodPermissionsReset, {});
  const n = res.removed;
  void vscode.window.showInformationMessage(`Tether forgot ${n} saved answer${n === 1 ? "" : "s"}.`);
}
