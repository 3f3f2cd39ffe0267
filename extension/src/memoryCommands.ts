// "Tether: Show Memories": the project's memories in a quick pick; the one
// picked opens as its Markdown file, which the user may edit like any other.

import * as vscode from "vscode";

import type { Daemon } from "./daemon";
import { MemoryInfo, memoryList } from "./protocol";

type Pick = vscode.QuickPickItem & { memory: MemoryInfo };

export function memoryItem(m: MemoryInfo): Pick {
  const facts = [m.type, `updated ${new Date(m.updated).toLocaleString()}`];
  if (m.source === "web") {
    facts.push("written after reading web content");
  }
  return {
    label: m.error ? `$(warning) ${m.name}` : m.name,
    description: facts.filter(Boolean).join(" · "),
    detail: m.error ? `Cannot be read as a memory: ${m.error}` : m.description,
    memory: m,
  };
}

export async function showMemories(daemon: Daemon): Promise<void> {
  const list = await daemon.request(memoryList, {});
  const memories = list.memories ?? [];
  if (memories.length === 0) {
    void vscode.window.showInformationMessage(
      `Tether has no memories for this project yet (they are kept in ${list.dir}).`,
    );
    return;
  }
  const picked = await vscode.window.showQuickPick(memories.map(memoryItem), {
    title: `Tether: project memories (${memories.length})`,
    placeHolder: "Pick one to open its file",
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) {
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(picked.memory.path));
  await vscode.window.showTextDocument(doc);
}
