// The command palette entries. Their ids are a contract (package.json,
// keybindings users make, the docs): never rename one.

import * as vscode from "vscode";
import { ErrorCodes, ResponseError } from "vscode-jsonrpc";

import type { Approvals } from "./approval";
import { showComposeRuns, type ComposeRuns } from "./compose";
import { ConfirmAnswerCommand } from "./confirm";
import { Daemon, errorText } from "./daemon";
import type { Answer } from "./hunks";
import type { InfoDocuments } from "./infoDocuments";
import { showMemories } from "./memoryCommands";
import { OpenReviewCommand } from "./names";
import { resetPermissions, reviewPermissions } from "./permissionCommands";
import { AnswerAlways, AnswerNo, AnswerSkip, AnswerYes } from "./protocol";
import type { RequestLog } from "./requestLog";
import { reviewStaged } from "./stagedCommands";
import { showCheckpoints, undo } from "./undoCommands";

/** Says what failed in words a user can act on. */
export function commandError(what: string, e: unknown): string {
  if (e instanceof ResponseError && e.code === ErrorCodes.MethodNotFound) {
    return `${what} is not available: this Tether daemon does not support it yet.`;
  }
  return `${what} failed: ${errorText(e)}`;
}

export function registerCommands(
  daemon: Daemon,
  approvals: Approvals,
  docs: InfoDocuments,
  log: vscode.LogOutputChannel,
  requests?: RequestLog,
  composeRuns?: ComposeRuns,
): vscode.Disposable[] {
  // A command's arguments come untyped from whoever runs it (a lens, a
  // title button, the palette); each handler says what it takes.
  const run =
    <A extends unknown[]>(what: string, fn: (...args: A) => unknown) =>
    async (...args: A) => {
      try {
        await fn(...args);
      } catch (e) {
        log.error(`${what}: ${errorText(e)}`);
        void vscode.window.showErrorMessage(commandError(what, e), "Show Log").then((c) => c && log.show());
      }
    };
  // A lens passes the proposal's uri as a string; a title button, as a Uri.
  const uriArg = (a: unknown) =>
    a instanceof vscode.Uri ? a : typeof a === "string" && a.includes(":") ? vscode.Uri.parse(a) : undefined;
  const reg = (id: string, what: string, fn: (...args: never[]) => unknown) =>
    vscode.commands.registerCommand(id, run(what, fn));
  return [
    reg("tether.undo", "Undo", () => undo(daemon, docs)),
    reg("tether.showCheckpoints", "Showing checkpoints", () => showCheckpoints(daemon, docs, requests)),
    reg(OpenReviewCommand, "Showing the change to review", () => approvals.openReview()),
    reg(ConfirmAnswerCommand, "Answering the confirmation", (id: string, answer: Answer) =>
      approvals.chat.choose(id, answer),
    ),
    reg("tether.approve", "Approve", (u?: unknown) => approvals.answer(AnswerYes, uriArg(u))),
    reg("tether.reject", "Reject", (u?: unknown) => approvals.answer(AnswerNo, uriArg(u))),
    reg("tether.approveAlways", "Approve always", (u?: unknown) => approvals.answer(AnswerAlways, uriArg(u))),
    reg("tether.skip", "Skip", (u?: unknown) => approvals.answer(AnswerSkip, uriArg(u))),
    reg("tether.toggleHunk", "Keeping or dropping a hunk", (u: string, id: number) => approvals.toggleHunk(u, id)),
    reg("tether.resetProposal", "Undoing your edits", (u?: string) => approvals.resetProposal(u)),
    reg("tether.toggleFile", "Leaving a file out of the change", (u?: string) => approvals.toggleFile(u)),
    reg("tether.reviewPermissions", "Reviewing permissions", () => reviewPermissions(daemon, docs)),
    reg("tether.resetPermissions", "Resetting permissions", () => resetPermissions(daemon)),
    reg("tether.reviewStaged", "Reviewing staged changes", () => reviewStaged(daemon, docs)),
    reg("tether.showMemories", "Showing memories", () => showMemories(daemon)),
    reg("tether.restart", "Restarting the daemon", () => daemon.restart()),
    reg("tether.showLog", "Showing the log", () => log.show()),
    reg("tether.showCompose", "Showing compose runs", () => showComposeRuns(composeRuns, docs)),
  ];
}
