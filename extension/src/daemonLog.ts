// The daemon logs to stderr with Go's slog text format, one record a line:
//   time=2026-05-01T10:00:00.000Z level=WARN msg="saving a rule" rule=git err="disk full"
// The output channel is a LogOutputChannel, which stamps its own time and
// filters by level, so each line is parsed into its level and a message
// (the msg, then the other attributes as key=value) and logged at that level.

import type * as vscode from "vscode";

export type Level = "trace" | "debug" | "info" | "warn" | "error";

export interface DaemonLine {
  level: Level;
  message: string;
}

/** Splits a logfmt line into its key=value pairs, unquoting Go-quoted values. */
export function parseLogfmt(line: string): [string, string][] | undefined {
  const out: [string, string][] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    while (i < n && line[i] === " ") {
      i++;
    }
    if (i >= n) {
      break;
    }
    const eq = line.indexOf("=", i);
    if (eq <= i) {
      return undefined;
    }
    const key = line.slice(i, eq);
    if (/\s|"/.test(key)) {
      return undefined;
    }
    i = eq + 1;
    let value: string;
    if (line[i] === '"') {
      let j = i + 1;
      while (j < n && line[j] !== '"') {
        j += line[j] === "\\" ? 2 : 1;
      }
      if (j >= n) {
        return undefined;
      }
      const quoted = line.slice(i, j + 1);
      try {
        value = JSON.parse(quoted) as string;
      } catch {
        value = quoted.slice(1, -1);
      }
      i = j + 1;
    } else {
      const sp = line.indexOf(" ", i);
      const end = sp < 0 ? n : sp;
      value = line.slice(i, end);
      i = end;
    }
    out.push([key, value]);
  }
  return out.length > 0 ? out : undefined;
}

/** slog's level names, with offsets such as WARN+2 or DEBUG-4, to the channel's levels. */
export function levelOf(name: string): Level {
  const m = /^(DEBUG|INFO|WARN|ERROR)([+-]\d+)?$/i.exec(name.trim());
  if (!m) {
    return "info";
  }
  const base = { DEBUG: -4, INFO: 0, WARN: 4, ERROR: 8 }[m[1].toUpperCase() as "DEBUG" | "INFO" | "WARN" | "ERROR"];
  const v = base + (m[2] ? Number(m[2]) : 0);
  if (v < -4) {
    return "trace";
  }
  if (v < 0) {
    return "debug";
  }
  if (v < 4) {
    return "info";
  }
  return v < 8 ? "warn" : "error";
}

/** Quotes an attribute value when it needs it, as slog does. */
function show(value: string): string {
  return value === "" || /[\s"=]/.test(value) ? JSON.stringify(value) : value;
}

/**
 * One stderr line as the channel should show it. A line that is not a slog
 * record (a Go panic and its stack) is an error, shown as it came.
 */
export function parseDaemonLine(line: string): DaemonLine {
  const pairs = parseLogfmt(line);
  const level = pairs?.find(([k]) => k === "level");
  const msg = pairs?.find(([k]) => k === "msg");
  if (!pairs || !level || !msg) {
    return { level: "error", message: line };
  }
  const rest = pairs.filter(([k]) => k !== "time" && k !== "level" && k !== "msg").map(([k, v]) => `${k}=${show(v)}`);
  return { level: levelOf(level[1]), message: rest.length > 0 ? `${msg[1]} ${rest.join(" ")}` : msg[1] };
}

/** Logs one stderr line of the daemon at its own level. */
export function logDaemonLine(log: vscode.LogOutputChannel, line: string): void {
  if (line.trim() === "") {
    return;
  }
  const { level, message } = parseDaemonLine(line);
  log[level](message);
}
