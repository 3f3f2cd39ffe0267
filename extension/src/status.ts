import * as vscode from "vscode";

import type { Daemon, DaemonState } from "./daemon";

const look: Record<DaemonState, { icon: string; label: string }> = {
  starting: { icon: "$(loading~spin)", label: "starting" },
  ready: { icon: "$(shield)", label: "ready" },
  restarting: { icon: "$(loading~spin)", label: "restarting" },
  stopped: { icon: "$(circle-slash)", label: "stopped" },
  failed: { icon: "$(error)", label: "stopped after an error" },
};

/** The status bar item: the daemon's state at a glance, the log one click away. */
export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly sub: vscode.Disposable;

  constructor(private readonly daemon: Daemon) {
    this.item = vscode.window.createStatusBarItem("tether.status", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "Tether";
    this.item.command = "tether.showLog";
    this.sub = daemon.onDidChangeState((s) => this.render(s));
    this.render(daemon.state);
    this.item.show();
  }

  private render(state: DaemonState): void {
    const { icon, label } = look[state];
    this.item.text = `${icon} Tether`;
    this.item.backgroundColor = state === "failed" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**Tether** — ${label}\n\n`);
    const info = this.daemon.initializeResult;
    if (state === "ready" && info) {
      tip.appendMarkdown(`${info.serverInfo.name} ${info.serverInfo.version}, ${info.tools?.length ?? 0} tools\n\n`);
    }
    if (state === "failed" && this.daemon.error) {
      tip.appendText(this.daemon.error);
      tip.appendMarkdown("\n\n");
    }
    tip.appendMarkdown("Click to show the log.");
    this.item.tooltip = tip;
  }

  dispose(): void {
    this.sub.dispose();
    this.item.dispose();
  }
}
