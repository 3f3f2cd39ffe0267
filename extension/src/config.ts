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
  /** Longest wait for fresh diagnostics after a change, in ms; 0: do not wait. */
  diagnosticsSettleMs: number;
  /** Folders outside the workspace that file changes may reach. */
  writeRoots: string[];
  /** How shell commands are confined (auto, landlock, off), and what else they may write. */
  shellSandbox: string;
  shellWritablePaths: string[];
}

export const configSection = "tether";

/** tether.diagnostics.settleMs when unset; the daemon's own default. */
export const defaultSettleMs = 3000;

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
    diagnosticsSettleMs: c.get<number>("diagnostics.settleMs", defaultSettleMs),
    writeRoots: c.get<string[]>("writeRoots", []),
    shellSandbox: c.get<string>("shell.sandbox", "auto"),
    shellWritablePaths: c.get<string[]>("shell.writablePaths", []),
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
    // The daemon reads 0 as its default and a negative value as "do not wait".
    diagnosticsSettleMs: cfg.diagnosticsSettleMs > 0 ? Math.round(cfg.diagnosticsSettleMs) : -1,
  };
  if (cfg.webAllowedHosts.length > 0) {
    s.webAllowedHosts = cfg.webAllowedHosts;
  }
  if (cfg.webPrivateHosts.length > 0) {
    s.webPrivateHosts = cfg.webPrivateHosts;
  }
  if (cfg.writeRoots.length > 0) {
    s.writeRoots = cfg.writeRoots;
  }
  if (cfg.shellSandbox && cfg.shellSandbox !== "auto") {
    s.shellSandbox = cfg.shellSandbox;
  }
  if (cfg.shellWritablePaths.length > 0) {
    s.shellWritablePaths = cfg.shellWritablePaths;
  }
  if (rgPath) {
    s.rgPath = rgPath;
  }
  return s;
}
