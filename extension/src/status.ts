import * as vscode from "vscode";

import type { Daemon, DaemonState } from "./daemon";

interface Look {
  icon: string;
  /** Said after "Tether" in the status bar; empty when all is well. */
  words: string;
  /** Said in the tooltip. */
  label: string;
  /** A state the user must notice: the error background. */
  alarm: boolean;
  /** What a click does. */
  command: "tether.showLog" | "tether.restart";
  action: string;
}

const looks: Record<DaemonState, Look> = {
  starting: {
    icon: "$(loading~spin)",
    words: "starting",
    label: "starting",
    alarm: false,
    command: "tether.showLog",
    action: "Click to show the log.",
  },
  ready: {
    icon: "$(shield)",
    words: "",
    label: "ready",
    alarm: false,
    command: "tether.showLog",
    action: "Click to show the log.",
  },
  restarting: {
    icon: "$(sync~spin)",
    words: "restarting",
    label: "the daemon stopped and is being restarted",
    alarm: true,
    command: "tether.restart",
    action: "Click to restart it now.",
  },
  stopped: {
    icon: "$(circle-slash)",
    words: "stopped",
    label: "stopped",
    alarm: false,
    command: "tether.restart",
    action: "Click to start it.",
  },
  failed: {
    icon: "$(error)",
    words: "stopped",
    label: "stopped after an error; restarts gave up",
    alarm: true,
    command: "tether.restart",
    action: "Click to restart it.",
  },
};

/** What the status item shows for a state: text, colour, tooltip lines and click. */
export function statusLook(state: DaemonState, reason: string | undefined): Look & { text: string; reason?: string } {
  const look = looks[state];
  return {
    ...look,
    text: look.words ? `${look.icon} Tether: ${look.words}` : `${look.icon} Tether`,
    reason: look.alarm || state === "stopped" ? reason : undefined,
  };
}

/**
 * The status bar item: the daemon's state in words, an error background
 * while it restarts or after restarts gave up, the reason in the tooltip,
 * and a click that restarts a daemon that is down (else shows the log).
 */
export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly sub: vscode.Disposable;

  constructor(private readonly daemon: Daemon) {
    this.item = vscode.window.createStatusBarItem("tether.status", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "Tether";
    this.sub = daemon.onDidChangeState((s) => this.render(s));
    this.render(daemon.state);
    this.item.show();
  }

  private render(state: DaemonState): void {
    const look = statusLook(state, this.daemon.error);
    this.item.text = look.text;
    this.item.command = look.command;
    this.item.backgroundColor = look.alarm ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    this.item.accessibilityInformation = { label: `Tether: ${look.label}` };
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**Tether**: ${look.label}\n\n`);
    const info = this.daemon.initializeResult;
    if (state === "ready" && info) {
      tip.appendMarkdown(`${info.serverInfo.name} ${info.serverInfo.version}, ${info.tools?.length ?? 0} tools\n\n`);
    }
    if (look.reason) {
      tip.appendText(look.reason);
      tip.appendMarkdown("\n\n");
    }
    tip.appendMarkdown(look.action);
    this.item.tooltip = tip;
  }

  dispose(): void {
    this.sub.dispose();
    this.item.dispose();
  }
}
