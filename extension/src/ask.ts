// user/ask: the model's question as a quick pick of its options, plus a
// way to answer in your own words when the question allows it.

import * as vscode from "vscode";
import type { CancellationToken as RpcCancellationToken } from "vscode-jsonrpc";

import type { Daemon } from "./daemon";
import { userAsk, UserAskParams, UserAskResult } from "./protocol";

export const freeTextLabel = "$(edit) Type your own answer…";

interface AskItem extends vscode.QuickPickItem {
  freeText?: boolean;
}

/**
 * The answer for what the user did: picked an option, picked the free-text
 * entry with something typed in the filter box (that text is the answer),
 * or dismissed it all (undefined).
 */
export function askAnswer(picked: AskItem | undefined, typed: string): UserAskResult | "needs-text" {
  if (!picked) {
    return { cancelled: true };
  }
  if (!picked.freeText) {
    return { answer: picked.label };
  }
  const text = typed.trim();
  return text ? { answer: text } : "needs-text";
}

/** The question as a title: on one line, which is all a title shows. */
export function askTitle(question: string): string {
  return question.replace(/\s+/g, " ").trim() || "Tether asks";
}

export async function ask(
  q: UserAskParams,
  token?: RpcCancellationToken,
  log?: vscode.LogOutputChannel,
): Promise<UserAskResult> {
  const items: AskItem[] = (q.options ?? []).map((o) => ({ label: o }));
  if (q.allowFreeText) {
    items.push({ label: freeTextLabel, freeText: true, alwaysShow: true, description: "or type it in the box above" });
  }
  const qp = vscode.window.createQuickPick<AskItem>();
  // The question is the title, which stays while the user types; the
  // placeholder vanishes with the first key.
  qp.title = askTitle(q.question) + (q.from ? ` (asked by ${q.from} through tether mcp)` : "");
  qp.placeholder = q.allowFreeText ? "Pick an answer, or type your own and press Enter" : "Pick an answer";
  qp.items = items;
  qp.ignoreFocusOut = true;
  const picked = await new Promise<{ item: AskItem | undefined; typed: string }>((resolve) => {
    let settled = false;
    const settle = (item: AskItem | undefined) => {
      if (!settled) {
        settled = true;
        resolve({ item, typed: qp.value });
      }
    };
    qp.onDidAccept(() => {
      // Enter with text that matches no option picks the free-text entry.
      const item = qp.selectedItems.at(0) ?? (q.allowFreeText && qp.value.trim() ? items.at(-1) : undefined);
      log?.debug(`ask_user: accepted ${JSON.stringify(item?.label)} with ${qp.value.length} characters typed`);
      if (item) {
        settle(item);
      }
      qp.hide();
    });
    qp.onDidHide(() => {
      log?.debug("ask_user: the quick pick closed");
      settle(undefined);
    });
    token?.onCancellationRequested(() => qp.hide());
    qp.show();
  });
  qp.dispose();
  const result = askAnswer(picked.item, picked.typed);
  if (result !== "needs-text") {
    return result;
  }
  if (token?.isCancellationRequested) {
    return { cancelled: true };
  }
  const text = await vscode.window.showInputBox({
    title: askTitle(q.question),
    prompt: "Type your answer",
    ignoreFocusOut: true,
  });
  return text?.trim() ? { answer: text.trim() } : { cancelled: true };
}

export function registerAsk(daemon: Daemon, log?: vscode.LogOutputChannel): void {
  daemon.onRequest(userAsk, async (q: UserAskParams, token: RpcCancellationToken) => {
    const res = await ask(q, token, log);
    log?.info(`ask_user ${JSON.stringify(askTitle(q.question))}: ${res.cancelled ? "not answered" : "answered"}`);
    return res;
  });
}
