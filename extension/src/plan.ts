// todo/changed: the agent's plan as a tree view, "Tether Plan".

import * as vscode from "vscode";

import type { Daemon } from "./daemon";
import { HasPlanContext } from "./names";
import { MethodTodoChanged, TodoChangedParams, TodoItem } from "./protocol";

export const planViewId = "tether.plan";

const icons: Record<string, { icon: string; label: string }> = {
  pending: { icon: "circle-large-outline", label: "to do" },
  in_progress: { icon: "loading~spin", label: "in progress" },
  done: { icon: "pass-filled", label: "done" },
};

export function planTreeItem(item: TodoItem): vscode.TreeItem {
  const t = new vscode.TreeItem(item.text, vscode.TreeItemCollapsibleState.None);
  const look = icons[item.status] ?? { icon: "question", label: item.status };
  t.iconPath = new vscode.ThemeIcon(look.icon);
  t.description = item.status === "in_progress" ? look.label : undefined;
  t.tooltip = `${item.text} (${look.label})`;
  return t;
}

export class PlanView implements vscode.TreeDataProvider<TodoItem>, vscode.Disposable {
  private items: TodoItem[] = [];
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly registration: vscode.Disposable;

  constructor(daemon: Daemon) {
    this.registration = vscode.window.registerTreeDataProvider(planViewId, this);
    daemon.onNotification(MethodTodoChanged, (p: TodoChangedParams) => this.update(p));
  }

  update(p: TodoChangedParams): void {
    this.items = p.items ?? [];
    // The view stays hidden until there is a plan, so it never activates
    // the extension or takes room for nothing.
    void vscode.commands.executeCommand("setContext", HasPlanContext, this.items.length > 0);
    this.emitter.fire();
  }

  getTreeItem(item: TodoItem): vscode.TreeItem {
    return planTreeItem(item);
  }

  getChildren(item?: TodoItem): TodoItem[] {
    return item ? [] : this.items;
  }

  dispose(): void {
    this.registration.dispose();
    this.emitter.dispose();
  }
}
