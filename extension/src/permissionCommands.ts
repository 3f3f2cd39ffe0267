// The saved "always" answers: review them, forget one, or forget them all.

import * as fs from "node:fs";
import * as vscode from "vscode";

import type { Daemon } from "./daemon";
import type { InfoDocuments } from "./infoDocuments";
import { permissionsList, permissionsRemove, permissionsReset, PermissionRule } from "./protocol";

/** A rule in words: the daemon's own description, or the same built here. */
export function describeRule(r: PermissionRule): string {
  const kind: string = r.kind; // a kind of a newer daemon falls through the switch
  if (r.description) {
    return r.description;
  }
  switch (r.kind) {
    case "shell": {
      const what = r.subcommand ? `${r.program ?? "?"} ${r.subcommand}` : (r.program ?? "?");
      return `always run ${what}${r.network === true ? " with network access" : ""}`;
    }
    case "fetch":
      return `always fetch from ${r.host ?? "?"}`;
    case "outside":
      return `always read in ${r.dir ?? "?"} (its own files; not its subfolders)`;
    case "edit":
      return "always change files inside the workspace";
    case "memory":
      return "always write project memory";
  }
  return `always ${kind}`;
}

type Action = "reset" | "open" | "rule";

type Item = vscode.QuickPickItem & { action?: Action; rule?: PermissionRule };

/** The list's row for one rule: what it allows, since when, and whether it is disabled. */
export function ruleItem(r: PermissionRule): Item {
  const since = r.added ? `since ${new Date(r.added).toLocaleDateString()}` : undefined;
  return {
    label: `${r.disabled ? "$(warning)" : "$(pass)"} ${describeRule(r)}`,
    description: since,
    detail: r.disabled ? `Disabled: ${r.disabled}` : "Pick it to forget it",
    action: "rule",
    rule: r,
  };
}

export async function reviewPermissions(daemon: Daemon, docs: InfoDocuments): Promise<void> {
  const res = await daemon.request(permissionsList, {});
  const rules = res.rules ?? [];
  const items: Item[] = rules.map(ruleItem);
  items.push(
    { label: "", kind: vscode.QuickPickItemKind.Separator },
    { label: "$(file) Open the saved answers", description: res.path, action: "open" },
  );
  if (rules.length > 0) {
    items.push({ label: "$(trash) Forget all of them…", action: "reset" });
  }
  const count =
    rules.length === 0
      ? "nothing is allowed always: Tether asks every time"
      : `${rules.length} saved answer${rules.length === 1 ? "" : "s"}; pick one to forget it`;
  const picked = await vscode.window.showQuickPick(items, {
    title: "Tether: what “Always” allows in this project",
    placeHolder: `Mode ${res.mode}; ${count}`,
  });
  if (picked?.action === "rule" && picked.rule) {
    await removePermission(daemon, picked.rule);
  } else if (picked?.action === "reset") {
    await resetPermissions(daemon);
  } else if (picked?.action === "open") {
    if (res.path && fs.existsSync(res.path)) {
      await vscode.window.showTextDocument(vscode.Uri.file(res.path), { preview: true });
    } else {
      const lines = [
        "# What “Always” allows in this project",
        "",
        `Permission mode: ${res.mode}`,
        "",
        ...rules.map((r) => `- ${describeRule(r)}`),
        "",
      ];
      await docs.show("Tether permissions.md", lines.join("\n"));
    }
  }
}

/** Forgets one saved answer, after the user says so. */
export async function removePermission(daemon: Daemon, rule: PermissionRule): Promise<void> {
  const forget = "Forget It";
  const ok = await vscode.window.showWarningMessage(
    `Forget “${describeRule(rule)}”? Tether will ask again before doing that.`,
    { modal: true },
    forget,
  );
  if (ok !== forget) {
    return;
  }
  const res = await daemon.request(permissionsRemove, { rules: [rule] });
  void vscode.window.showInformationMessage(
    res.removed > 0 ? `Tether forgot: ${describeRule(rule)}.` : "That answer was already gone.",
  );
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
  const res = await daemon.request(permissionsReset, {});
  const n = res.removed;
  void vscode.window.showInformationMessage(`Tether forgot ${n} saved answer${n === 1 ? "" : "s"}.`);
}
