// The "Tether Plan" view: the agent's plan (todo/changed) with the tool
// calls made under each step (tools/activity) as its children, a sub-agent's
// or a program's calls under the call that made them. A request without a
// plan shows its calls under a node of its own. Clicking a finished call
// shows its result again (tools/result), and its diff for a change.

import * as vscode from "vscode";

import type { Daemon } from "./daemon";
import { errorText } from "./daemon";
import type { InfoDocuments } from "./infoDocuments";
import { HasPlanContext } from "./names";
import {
  Activity,
  todoChanged,
  toolsActivity,
  toolsResult,
  TodoChangedParams,
  TodoItem,
  ToolResultParams,
  ToolResultResult,
} from "./protocol";

export const planViewId = "tether.plan";
export const showActivityCommand = "tether.showActivityResult";

/** How many requests without a plan keep a node, newest first. */
export const maxRequestNodes = 5;
/** The tool that writes the plan: a request that calls it has a plan. */
const planTool = "todo";
/** How many calls the view remembers from tools/activity. */
const maxLive = 500;

const icons: Record<string, { icon: string; label: string }> = {
  pending: { icon: "circle-large-outline", label: "to do" },
  in_progress: { icon: "loading~spin", label: "in progress" },
  done: { icon: "pass-filled", label: "done" },
};

const activityIcons: Record<string, { icon: string; color?: string; label: string }> = {
  running: { icon: "loading~spin", label: "running" },
  ok: { icon: "pass", color: "testing.iconPassed", label: "done" },
  error: { icon: "error", color: "testing.iconFailed", label: "failed" },
  refused: { icon: "circle-slash", color: "list.warningForeground", label: "refused" },
};

export type PlanNode =
  | { kind: "item"; item: TodoItem; index: number }
  | { kind: "request"; requestId: string }
  | { kind: "activity"; activity: Activity };

export function planTreeItem(item: TodoItem): vscode.TreeItem {
  const open = (item.activity?.length ?? 0) > 0;
  const state = !open
    ? vscode.TreeItemCollapsibleState.None
    : item.status === "in_progress"
      ? vscode.TreeItemCollapsibleState.Expanded
      : vscode.TreeItemCollapsibleState.Collapsed;
  const t = new vscode.TreeItem(item.text, state);
  const look = icons[item.status] ?? { icon: "question", label: item.status };
  t.iconPath = new vscode.ThemeIcon(look.icon);
  t.description = item.status === "in_progress" ? look.label : undefined;
  t.tooltip = `${item.text} (${look.label})`;
  return t;
}

/** A duration as a person reads it: <1 ms, 340 ms, 1.2 s, 2 min 5 s. */
export function formatDuration(ms: number): string {
  if (ms < 1) {
    return "<1 ms"; // the daemon reports whole milliseconds
  }
  if (ms < 1000) {
    return `${Math.max(0, Math.round(ms))} ms`;
  }
  if (ms < 60_000) {
    return `${(ms / 1000).toFixed(1).replace(/\.0$/, "")} s`;
  }
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

export function activityTreeItem(a: Activity, hasChildren: boolean): vscode.TreeItem {
  const label = a.title || a.tool;
  const t = new vscode.TreeItem(
    label,
    hasChildren ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
  );
  const look = activityIcons[a.status] ?? { icon: "question", label: a.status };
  t.iconPath = new vscode.ThemeIcon(look.icon, look.color ? new vscode.ThemeColor(look.color) : undefined);
  t.id = `call:${a.requestId}:${a.callId}`;
  if (a.status === "running") {
    t.description = "running";
    t.tooltip = `${a.tool}: ${label} (running)`;
    return t;
  }
  t.description = formatDuration(a.durationMs ?? 0);
  t.tooltip = `${a.tool}: ${label} (${look.label} in ${t.description}). Click to see its result.`;
  t.command = { command: showActivityCommand, title: "Show Result", arguments: [a.callId] };
  return t;
}

export class PlanView implements vscode.TreeDataProvider<PlanNode>, vscode.Disposable {
  private items: TodoItem[] = [];
  /** Every call reported by tools/activity, latest state, oldest first. */
  private readonly live = new Map<string, Activity>();
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly view: vscode.TreeView<PlanNode>;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly daemon: Daemon,
    private readonly docs?: InfoDocuments,
  ) {
    this.view = vscode.window.createTreeView(planViewId, { treeDataProvider: this });
    daemon.onNotification(todoChanged, (p: TodoChangedParams) => this.update(p));
    daemon.onNotification(toolsActivity, (a: Activity) => this.activity(a));
    this.disposables.push(
      this.view,
      vscode.commands.registerCommand(showActivityCommand, (callId: string) => this.showResult(callId)),
      // The calls of a daemon that went away cannot be shown again.
      daemon.onDidStop(() => {
        this.items = [];
        this.live.clear();
        this.changed();
      }),
    );
  }

  update(p: TodoChangedParams): void {
    this.items = p.items ?? [];
    this.changed();
  }

  activity(a: Activity): void {
    const key = liveKey(a);
    this.live.delete(key);
    this.live.set(key, a);
    for (const old of this.live.keys()) {
      if (this.live.size <= maxLive) {
        break;
      }
      this.live.delete(old);
    }
    this.changed();
  }

  private changed(): void {
    const left = this.items.filter((i) => i.status !== "done").length;
    this.view.badge =
      left > 0 ? { value: left, tooltip: `${left} step${left === 1 ? "" : "s"} of the plan left` } : undefined;
    // The view stays hidden until there is something to show, so it never
    // activates the extension or takes room for nothing.
    void vscode.commands.executeCommand(
      "setContext",
      HasPlanContext,
      this.items.length > 0 || this.requests().length > 0,
    );
    this.emitter.fire();
  }

  getTreeItem(n: PlanNode): vscode.TreeItem {
    switch (n.kind) {
      case "item": {
        const t = planTreeItem(n.item);
        t.id = `item:${n.index}:${n.item.text}`;
        return t;
      }
      case "request": {
        const calls = this.unplanned(n.requestId);
        const running = calls.some((a) => a.status === "running");
        const t = new vscode.TreeItem(`Request ${shortId(n.requestId)}`, vscode.TreeItemCollapsibleState.Expanded);
        t.id = `request:${n.requestId}`;
        t.iconPath = new vscode.ThemeIcon(running ? "loading~spin" : "comment-discussion");
        t.description = `${calls.length} call${calls.length === 1 ? "" : "s"}${running ? ", running" : ""}`;
        t.tooltip = `The calls of chat request ${n.requestId}, which has no plan`;
        return t;
      }
      case "activity":
        return activityTreeItem(this.latest(n.activity), this.childrenOf(n.activity).length > 0);
    }
  }

  getChildren(n?: PlanNode): PlanNode[] {
    if (!n) {
      const items: PlanNode[] = this.items.map((item, index) => ({ kind: "item", item, index }));
      const requests: PlanNode[] = this.requests().map((requestId) => ({ kind: "request", requestId }));
      return [...items, ...requests];
    }
    switch (n.kind) {
      case "item": {
        const acts = n.item.activity ?? [];
        const ids = new Set(acts.map((a) => a.callId));
        return acts.filter((a) => !a.parentCallId || !ids.has(a.parentCallId)).map(activityNode);
      }
      case "request":
        return this.unplanned(n.requestId).map(activityNode);
      case "activity":
        return this.childrenOf(n.activity).map(activityNode);
    }
  }

  /** The calls a call made, from the plan and from the live reports. */
  private childrenOf(a: Activity): Activity[] {
    const seen = new Set<string>();
    const out: Activity[] = [];
    const add = (c: Activity) => {
      if (c.parentCallId === a.callId && c.requestId === a.requestId && !seen.has(c.callId)) {
        seen.add(c.callId);
        out.push(c);
      }
    };
    this.items.forEach((i) => i.activity?.forEach(add));
    this.live.forEach(add);
    return out;
  }

  /** A call's newest state: a live report of its end beats a plan that still says running. */
  private latest(a: Activity): Activity {
    const l = this.live.get(liveKey(a));
    return l && a.status === "running" && l.status !== "running" ? l : a;
  }

  private planned(): Set<string> {
    const s = new Set<string>();
    this.items.forEach((i) => i.activity?.forEach((a) => s.add(liveKey(a))));
    return s;
  }

  /** The top-level calls of a request that the plan does not hold. */
  private unplanned(requestId: string): Activity[] {
    const planned = this.planned();
    const out: Activity[] = [];
    const ids = new Set<string>();
    this.live.forEach((a) => {
      if (a.requestId === requestId) {
        ids.add(a.callId);
      }
    });
    this.live.forEach((a) => {
      if (a.requestId === requestId && !planned.has(liveKey(a)) && (!a.parentCallId || !ids.has(a.parentCallId))) {
        out.push(a);
      }
    });
    return out;
  }

  /** Requests without a plan, newest first: those that neither wrote the plan nor have calls in it. */
  private requests(): string[] {
    const withPlan = new Set<string>();
    this.items.forEach((i) => i.activity?.forEach((a) => withPlan.add(a.requestId)));
    this.live.forEach((a) => {
      if (a.tool === planTool) {
        withPlan.add(a.requestId);
      }
    });
    const order: string[] = [];
    this.live.forEach((a) => {
      if (!withPlan.has(a.requestId) && !a.parentCallId) {
        const i = order.indexOf(a.requestId);
        if (i >= 0) {
          order.splice(i, 1);
        }
        order.push(a.requestId);
      }
    });
    return order.reverse().slice(0, maxRequestNodes);
  }

  /** Shows a finished call's result, with its diff when it changed something. */
  async showResult(callId: string): Promise<void> {
    let res: ToolResultResult;
    try {
      const params: ToolResultParams = { callId };
      res = await this.daemon.request(toolsResult, params);
    } catch (e) {
      void vscode.window.showWarningMessage(`Tether cannot show that call's result: ${errorText(e)}`);
      return;
    }
    const text = resultText(res);
    const name = `${res.tool || "call"}-${safeName(callId)}${res.diff ? ".diff" : ".txt"}`;
    if (this.docs) {
      await this.docs.show(name, text);
    } else {
      const doc = await vscode.workspace.openTextDocument({ content: text, language: res.diff ? "diff" : "plaintext" });
      await vscode.window.showTextDocument(doc, { preview: true });
    }
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
    this.emitter.dispose();
  }
}

/** What a result document holds: the title, what the model was told, then the diff. */
export function resultText(r: ToolResultResult): string {
  const head = `${r.title || r.tool}${r.isError ? " (failed)" : ""}`;
  const body = r.content.replace(/\n+$/, "");
  return r.diff ? `${head}\n\n${body}\n\n${r.diff}` : `${head}\n\n${body}\n`;
}

function activityNode(activity: Activity): PlanNode {
  return { kind: "activity", activity };
}

function liveKey(a: Activity): string {
  return `${a.requestId}\u0000${a.callId}`;
}

function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id || "(none)";
}

function safeName(s: string): string {
  return s.replace(/[^\w.-]+/g, "_").slice(0, 40);
}
