// compose: the history of the programs the agent ran and of the tool calls
// each made. The daemon reports each child call as it starts and ends
// (tools/activity, under the compose call's id); this keeps them with the
// program and its result, and "Tether: Show Compose Runs" opens one: a
// header row (the program, its result, logs and errors) and a row per call
// (its input, output and diff).

import * as vscode from "vscode";

import type { Daemon } from "./daemon";
import type { InfoDocuments } from "./infoDocuments";
import { ToolPrefix } from "./names";
import { Activity, ActivityStatus, toolsActivity, toolsInvoke, ToolCallResult, ToolInvokeParams } from "./protocol";

/** The daemon's name of the compose tool. */
export const ComposeTool = "compose";

/** How many runs the history keeps, newest first. */
const maxRuns = 20;

export interface ComposeChild {
  callId: string;
  tool: string;
  title: string;
  status: ActivityStatus;
  durationMs?: number;
  input?: string;
  output?: string;
  diff?: string;
}

export interface ComposeRun {
  requestId: string;
  program: string;
  started: Date;
  /** The compose call's id, learned from its first child's report. */
  parentCallId?: string;
  /** The daemon's answer, once the program ended. */
  result?: ToolCallResult;
  /** Why the call itself failed (no answer from the daemon). */
  error?: string;
  children: ComposeChild[];
  /** The chat request's toolInvocationToken, for calls run through VS Code. */
  token?: unknown;
}

/** A call run through VS Code, waiting for Tether's own tool to report its full result. */
interface Expected {
  key: string;
  resolve: (r: ToolCallResult) => void;
}

export class ComposeRuns implements vscode.Disposable {
  private runs: ComposeRun[] = [];
  private expected: Expected[] = [];
  private readonly emitter = new vscode.EventEmitter<ComposeRun>();
  readonly onDidChange = this.emitter.event;

  constructor(daemon: Daemon) {
    daemon.onNotification(toolsActivity, (a: Activity) => this.activity(a));
  }

  /** A compose call starts: its program is kept until it ends. */
  begin(requestId: string, input: unknown, token?: unknown): ComposeRun {
    const code = (input as { code?: unknown } | undefined)?.code;
    const run: ComposeRun = {
      requestId,
      program: typeof code === "string" ? code : "",
      started: new Date(),
      children: [],
      token,
    };
    this.runs.unshift(run);
    this.runs.length = Math.min(this.runs.length, maxRuns);
    this.emitter.fire(run);
    return run;
  }

  end(run: ComposeRun, result?: ToolCallResult, error?: string): void {
    run.result = result;
    run.error = error;
    run.token = undefined;
    this.emitter.fire(run);
  }

  /** The running compose call of a request, which a tools/invoke belongs to. */
  running(requestId: string, parentCallId: string): ComposeRun | undefined {
    return (
      this.runs.find((r) => r.parentCallId === parentCallId && !r.result) ??
      [...this.runs].reverse().find((r) => !r.result && !r.error && r.requestId === requestId)
    );
  }

  /**
   * VS Code hands a tool's caller only the text of its result. A call run
   * through VS Code waits here for Tether's own tool to report the whole
   * result (error flag, diff), matched by tool and input.
   */
  expect(name: string, input: unknown): { result: Promise<ToolCallResult>; cancel: () => void } {
    const key = expectKey(name, input);
    let entry!: Expected;
    const result = new Promise<ToolCallResult>((resolve) => {
      entry = { key, resolve };
      this.expected.push(entry);
    });
    return { result, cancel: () => (this.expected = this.expected.filter((e) => e !== entry)) };
  }

  /** Tether's tool finished a call: a compose call waiting for it gets the whole result. */
  offer(name: string, input: unknown, res: ToolCallResult): void {
    const key = expectKey(name, input);
    const i = this.expected.findIndex((e) => e.key === key);
    if (i >= 0) {
      const [e] = this.expected.splice(i, 1);
      e.resolve(res);
    }
  }

  /**
   * A child call started or ended. The extension does not see the JSON-RPC
   * id of its own tools/call, so a run learns its id from its first child:
   * the oldest running compose call of the same request.
   */
  activity(a: Activity): void {
    if (!a.parentCallId) {
      return;
    }
    let run = this.runs.find((r) => r.parentCallId === a.parentCallId);
    if (!run) {
      run = [...this.runs]
        .reverse()
        .find((r) => !r.parentCallId && !r.result && !r.error && r.requestId === a.requestId);
      if (!run) {
        return;
      }
      run.parentCallId = a.parentCallId;
    }
    let child = run.children.find((c) => c.callId === a.callId);
    if (!child) {
      child = { callId: a.callId, tool: a.tool, title: a.title, status: a.status };
      run.children.push(child);
    }
    child.status = a.status;
    child.title = a.title || child.title;
    if (a.durationMs !== undefined) child.durationMs = a.durationMs;
    if (a.input) child.input = a.input;
    if (a.output !== undefined) child.output = a.output;
    if (a.diff) child.diff = a.diff;
    this.emitter.fire(run);
  }

  list(): readonly ComposeRun[] {
    return this.runs;
  }

  dispose(): void {
    this.emitter.dispose();
    this.runs = [];
  }
}

function expectKey(name: string, input: unknown): string {
  return name + "\u0000" + JSON.stringify(input ?? {});
}

/**
 * tools/invoke: the daemon asks VS Code to run one tool call of a compose
 * program, with the chat request's token, so the chat shows it as a row of
 * its own. The call reaches Tether again as an ordinary tools/call of the
 * same request; its whole result comes back through ComposeRuns.offer.
 */
export function registerToolsInvoke(daemon: Daemon, runs: ComposeRuns): void {
  daemon.onRequest(toolsInvoke, async (p: ToolInvokeParams, rpcToken: vscode.CancellationToken) => {
    const run = runs.running(p.requestId, p.parentCallId);
    const cts = new vscode.CancellationTokenSource();
    const sub = rpcToken.onCancellationRequested(() => cts.cancel());
    const waiting = runs.expect(p.name, p.arguments);
    try {
      const r = await vscode.lm.invokeTool(
        ToolPrefix + p.name,
        { input: p.arguments as object, toolInvocationToken: run?.token as vscode.ChatParticipantToolToken },
        cts.token,
      );
      const text = r.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : "")).join("");
      // Tether's own tool reports the whole result before invokeTool returns;
      // a result without that report is taken as plain text.
      const whole = await Promise.race([waiting.result, Promise.resolve(undefined)]);
      return whole ?? { content: text, isError: false };
    } finally {
      waiting.cancel();
      sub.dispose();
      cts.dispose();
    }
  });
}

const statusIcons: Record<string, string> = {
  running: "loading~spin",
  ok: "pass",
  error: "error",
  refused: "circle-slash",
};

function duration(ms?: number): string {
  return ms === undefined ? "" : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function runState(run: ComposeRun): string {
  if (run.error) return "failed";
  if (!run.result) return "running";
  return run.result.isError ? "stopped" : "done";
}

/** The header row of a run: its state, when, how many calls. */
export function runLabel(run: ComposeRun): { label: string; description: string } {
  const first =
    run.program
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "(empty program)";
  return {
    label: `$(code) ${first.length > 60 ? first.slice(0, 59) + "…" : first}`,
    description: `${runState(run)} · ${run.children.length} calls · ${run.started.toLocaleTimeString()}`,
  };
}

/** A child's row: its icon, what it did, how long it took. */
export function childLabel(c: ComposeChild): { label: string; description: string } {
  return {
    label: `$(${statusIcons[c.status] ?? "question"}) ${c.title || c.tool}`,
    description: `${c.tool} · ${c.status} ${duration(c.durationMs)}`.trim(),
  };
}

function fence(lang: string, text: string): string {
  const ticks = text.includes("```") ? "````" : "```";
  return `${ticks}${lang}\n${text.replace(/\n$/, "")}\n${ticks}\n`;
}

/** The header's document: the program, then its result, logs and errors. */
export function runText(run: ComposeRun): string {
  let out = `# Compose program (${runState(run)})\n\nRequest ${run.requestId || "(none)"}, started ${run.started.toLocaleString()}.\n\n`;
  out += fence("js", run.program);
  if (run.error) {
    out += `\n## Error\n\n${fence("", run.error)}`;
  } else if (run.result) {
    out += `\n## ${run.result.isError ? "Stopped" : "Result"}, logs and calls\n\n${fence("", run.result.content)}`;
  } else {
    out += "\n(still running)\n";
  }
  return out;
}

/** A child's document: its input, output and diff. */
export function childText(c: ComposeChild): string {
  let input = c.input ?? "";
  try {
    input = JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    // kept as sent (it may have been cut)
  }
  let out = `# ${c.title || c.tool} (${c.tool}, ${c.status}${c.durationMs !== undefined ? ", " + duration(c.durationMs) : ""})\n\n## Input\n\n${fence("json", input)}`;
  out += `\n## Output\n\n${c.output === undefined ? "(not finished)\n" : fence("", c.output)}`;
  if (c.diff) {
    out += `\n## Diff\n\n${fence("diff", c.diff)}`;
  }
  return out;
}

type Row = vscode.QuickPickItem & { open: () => Promise<unknown> };

/** "Tether: Show Compose Runs": pick a run, then its header or one of its calls. */
export async function showComposeRuns(runs: ComposeRuns | undefined, docs: InfoDocuments): Promise<void> {
  const list = runs?.list() ?? [];
  if (list.length === 0) {
    void vscode.window.showInformationMessage("No compose program has run since Tether started.");
    return;
  }
  const picked = await vscode.window.showQuickPick(
    list.map((run) => ({ ...runLabel(run), run })),
    { title: "Compose runs", placeHolder: "Pick a program to see it and its calls" },
  );
  if (!picked) {
    return;
  }
  const run = picked.run;
  const rows: Row[] = [
    {
      label: "$(code) Program, result, logs and errors",
      description: runState(run),
      open: () => docs.show("compose.md", runText(run)),
    },
    ...run.children.map((c, i) => ({ ...childLabel(c), open: () => docs.show(`call-${i + 1}.md`, childText(c)) })),
  ];
  const row = await vscode.window.showQuickPick(rows, {
    title: "Compose run",
    placeHolder: "The program, or one of its calls",
  });
  await row?.open();
}
