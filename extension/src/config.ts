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
  agentMaxTurns: number;
  memoryMaxBytes: number;
  /** Hosts fetched without asking; hosts or CIDRs on private networks that may be reached. */
  webAllowedHosts: string[];
  webPrivateHosts: string[];
  webTimeout: number;
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
    agentMaxTurns: c.get<number>("agent.maxTurns", 30),
    memoryMaxBytes: c.get<number>("memory.maxBytes", 16384),
    webAllowedHosts: c.get<string[]>("web.allowedHosts", []),
    webPrivateHosts: c.get<string[]>("web.allowedPrivateHosts", []),
    webTimeout: c.get<number>("web.timeout", 30),
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
    agentMaxTurns: cfg.agentMaxTurns,
    memoryMaxBytes: cfg.memoryMaxBytes,
    webTimeout: cfg.webTimeout,
  };
  if (cfg.webAllowedHosts.length > 0) {
    s.webAllowedHosts = cfg.webAllowedHosts;
  }
  if (cfg.webPrivateHosts.length > 0) {
    s.webPrivateHosts = cfg.webPrivateHosts;
  }
  if (rgPath) {
    s.rgPath = rgPath;
  }
  return s;
}
