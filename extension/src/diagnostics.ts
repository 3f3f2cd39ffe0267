// Feeds the daemon what only the editor knows: the diagnostics of every
// file (for the problems tool) and which files have unsaved changes.

import * as vscode from "vscode";

import type { Daemon } from "./daemon";
import {
  Diagnostic,
  DiagnosticSeverity,
  DiagnosticsPublishParams,
  diagnosticsPublish,
  workspaceDirty,
  workspaceSaved,
  WorkspaceDirtyParams,
  WorkspaceSavedParams,
} from "./protocol";

/** Converts a VS Code diagnostic to LSP's shape: severity 0–3 becomes 1–4. */
export function toLspDiagnostic(d: vscode.Diagnostic): Diagnostic {
  const out: Diagnostic = {
    range: {
      start: { line: d.range.start.line, character: d.range.start.character },
      end: { line: d.range.end.line, character: d.range.end.character },
    },
    severity: (Math.min(Math.max(d.severity, 0), 3) + 1) as DiagnosticSeverity,
    message: d.message,
  };
  const code = typeof d.code === "object" ? d.code.value : d.code;
  if (code !== undefined && code !== "") {
    out.code = code;
  }
  if (d.source) {
    out.source = d.source;
  }
  return out;
}

/** Only files on disk matter to the daemon; other schemes are editor-internal. */
function isFile(uri: vscode.Uri): boolean {
  return uri.scheme === "file";
}

export interface FeederOptions {
  /** Where each publish is noted, at debug level. */
  log?: { debug(message: string): void };
  /** Wait this long after a change for more to batch with it. */
  debounceMs?: number;
  schedule?: (fn: () => void, ms: number) => { dispose(): void };
}

const defaultSchedule = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  return { dispose: () => clearTimeout(t) };
};

/**
 * DiagnosticsFeeder publishes every file's diagnostics when a daemon
 * starts, then the files whose diagnostics changed, batched: a language
 * server often reports the same file many times in a burst, and only the
 * last report matters. The editor's buffers (which have unsaved changes,
 * which are open) are sent the same way, only when they change.
 */
export class DiagnosticsFeeder implements vscode.Disposable {
  private readonly subs: vscode.Disposable[] = [];
  private readonly pending = new Map<string, vscode.Uri>();
  private timer: { dispose(): void } | undefined;
  private dirtyTimer: { dispose(): void } | undefined;
  private lastDirty = "";
  private readonly debounceMs: number;
  private readonly schedule: NonNullable<FeederOptions["schedule"]>;

  private readonly log: FeederOptions["log"];

  constructor(
    private readonly daemon: Daemon,
    opts: FeederOptions = {},
  ) {
    this.log = opts.log;
    this.debounceMs = opts.debounceMs ?? 100;
    this.schedule = opts.schedule ?? defaultSchedule;
    this.subs.push(
      daemon.onDidStart(() => this.publishAll()),
      vscode.languages.onDidChangeDiagnostics((e) => this.changed(e.uris)),
      vscode.workspace.onDidChangeTextDocument((e) => this.dirtyChanged(e.document)),
      vscode.workspace.onDidSaveTextDocument((d) => {
        this.saved(d);
        this.dirtyChanged(d);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.dirtyChanged(d)),
      vscode.workspace.onDidOpenTextDocument((d) => this.dirtyChanged(d)),
    );
  }

  /**
   * Sends everything, as a fresh daemon knows nothing: the open files
   * first, so the daemon can tell which diagnostics came for files that
   * are not open (a sign their language server checks closed files too).
   */
  publishAll(): void {
    this.timer?.dispose();
    this.timer = undefined;
    this.pending.clear();
    this.lastDirty = "";
    this.sendDirty();
    for (const [uri, diags] of vscode.languages.getDiagnostics()) {
      if (isFile(uri)) {
        this.publish(uri, diags);
      }
    }
  }

  private changed(uris: readonly vscode.Uri[]): void {
    for (const u of uris) {
      if (isFile(u)) {
        this.pending.set(u.toString(), u);
      }
    }
    if (this.pending.size > 0 && !this.timer) {
      this.timer = this.schedule(() => this.flush(), this.debounceMs);
    }
  }

  /** Publishes the batched files with what they have now (an empty list clears). */
  flush(): void {
    this.timer = undefined;
    const uris = [...this.pending.values()];
    this.pending.clear();
    for (const u of uris) {
      this.publish(u, vscode.languages.getDiagnostics(u));
    }
  }

  private publish(uri: vscode.Uri, diags: readonly vscode.Diagnostic[]): void {
    const params: DiagnosticsPublishParams = { uri: uri.toString(), diagnostics: diags.map(toLspDiagnostic) };
    this.log?.debug(`diagnostics of ${uri.path}: ${diags.length}`);
    this.daemon.notify(diagnosticsPublish, params);
  }

  /**
   * Tells the daemon at once that the user saved a file: a file the agent
   * read and that changed since is then refused with "the user saved it",
   * not as a change from outside.
   */
  private saved(doc: vscode.TextDocument): void {
    if (!isFile(doc.uri)) {
      return;
    }
    const params: WorkspaceSavedParams = { uris: [doc.uri.toString()] };
    this.daemon.notify(workspaceSaved, params);
  }

  private dirtyChanged(doc: vscode.TextDocument): void {
    if (!isFile(doc.uri) || this.dirtyTimer) {
      return;
    }
    this.dirtyTimer = this.schedule(() => {
      this.dirtyTimer = undefined;
      this.sendDirty();
    }, this.debounceMs);
  }

  /**
   * Sends the files with unsaved changes, and the files open at all: the
   * ones language servers check, so the daemon waits for fresh
   * diagnostics of those only.
   */
  private sendDirty(): void {
    const docs = vscode.workspace.textDocuments.filter((d) => !d.isClosed && isFile(d.uri));
    const uris = docs
      .filter((d) => d.isDirty)
      .map((d) => d.uri.toString())
      .sort();
    const open = docs.map((d) => d.uri.toString()).sort();
    const key = `${uris.join("\n")}\n\n${open.join("\n")}`;
    if (key === this.lastDirty) {
      return;
    }
    this.lastDirty = key;
    const params: WorkspaceDirtyParams = { uris, open };
    this.daemon.notify(workspaceDirty, params);
  }

  dispose(): void {
    this.timer?.dispose();
    this.dirtyTimer?.dispose();
    for (const s of this.subs) {
      s.dispose();
    }
  }
}
