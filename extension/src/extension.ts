// Entry point. Activation is lazy (VS Code activates the extension on the
// first call of a tether_* tool or a Tether command) and cheap: the daemon
// starts in the background and the first call waits for it.

import * as vscode from "vscode";

import { Approvals } from "./approval";
import { registerAsk } from "./ask";
import { registerCommands } from "./commands";
import { ComposeRuns, registerToolsInvoke } from "./compose";
import { configSection } from "./config";
import { Daemon, errorText } from "./daemon";
import { DiagnosticsFeeder } from "./diagnostics";
import { InfoDocuments } from "./infoDocuments";
import { ModelBridge } from "./model";
import { PlanView } from "./plan";
import { StatusItem } from "./status";
import { RequestLog } from "./requestLog";
import { newToolContext, registerTools } from "./tools";

let daemon: Daemon | undefined;
let approvals: Approvals | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel("Tether", { log: true });
  const pkg = context.extension.packageJSON as {
    version?: string;
    contributes?: { languageModelTools?: { name: string }[] };
  };
  const d = new Daemon({ extensionPath: context.extensionPath, clientVersion: pkg.version ?? "0.0.0", log });
  daemon = d;
  approvals = new Approvals(daemon, log);
  const composeRuns = new ComposeRuns(daemon);
  const tools = { ...newToolContext(approvals.chat.calls, new RequestLog(context.workspaceState)), composeRuns };
  const docs = new InfoDocuments();
  registerToolsInvoke(daemon, composeRuns);
  registerAsk(daemon, log);
  new ModelBridge(daemon, log);
  context.subscriptions.push(
    log,
    new StatusItem(daemon),
    new DiagnosticsFeeder(daemon, { log }),
    new PlanView(daemon, docs),
    docs,
    composeRuns,
    ...registerTools(
      daemon,
      (pkg.contributes?.languageModelTools ?? []).map((t) => t.name),
      log,
      tools,
      approvals.chat,
    ),
    ...registerCommands(daemon, approvals, docs, log, tools.requests, composeRuns),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(configSection)) {
        void offerRestart(d);
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      // The daemon's roots are fixed at initialize.
      if (daemon?.state === "ready") {
        void daemon.restart().catch((e: unknown) => log.error(errorText(e)));
      }
    }),
  );
  daemon.start().catch((e: unknown) => daemon?.logStartError(e));
}

/** Settings reach the daemon in initialize; a change needs a restart, which would end running calls. */
async function offerRestart(d: Daemon): Promise<void> {
  if (d.state !== "ready") {
    return;
  }
  const restart = "Restart";
  const choice = await vscode.window.showInformationMessage(
    "Tether's settings changed. Restart its daemon to apply them?",
    restart,
  );
  if (choice === restart) {
    await d.restart();
  }
}

export async function deactivate(): Promise<void> {
  // Open approvals are answered first, while the daemon can still hear it.
  approvals?.dispose();
  approvals = undefined;
  await daemon?.dispose();
  daemon = undefined;
}
