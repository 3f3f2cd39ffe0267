import * as vscode from "vscode";

import type { Mode, Settings } from "./protocol";

/** The tether.* settings, with their defaults applied. */
export interface TetherConfig {
  /** A daemon binary to run instead of the bundled one; "" for the bundled one. */
  path: string;
  permissionMode: Mode;
  logLevel: string;
  undoKeep: number;
  shellTimeout: number;
  /** Run compose programs' tool calls through VS Code, which shows them in the chat. */
  composeCallsInChat: boolean;
}

export const configSection = "tether";

export function readConfig(): TetherConfig {
  const c = vscode.workspace.getConfiguration(configSection);
  return {
    path: c.get<string>("path", "").trim(),
    permissionMode: c.get<Mode>("permissionMode", "default"),
    logLevel: c.get<string>("logLevel", "info"),
    undoKeep: c.get<number>("undo.keep", 20),
    shellTimeout: c.get<number>("shell.defaultTimeout", 120),
    composeCallsInChat: c.get<boolean>("compose.callsInChat", false),
  };
}

/** The settings initialize carries; rgPath is the ripgrep inside VS Code, if found. */
export function daemonSettings(cfg: TetherConfig, rgPath: string | undefined): Settings {
  const s: Settings = {
    permissionMode: cfg.permissionMode,
    logLevel: cfg.logLevel,
    undoKeep: cfg.undoKeep,
    shellTimeout: cfg.shellTimeout,
  };
  if (rgPath) {
    s.rgPath = rgPath;
  }
  return s;
}
