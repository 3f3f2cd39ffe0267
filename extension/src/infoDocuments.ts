import * as vscode from "vscode";

import { InfoScheme } from "./names";

/**
 * InfoDocuments shows text (undo details, a checkpoint's diff, the saved
 * permissions) in read-only editors: a content provider's documents cannot
 * be edited or saved by mistake.
 */
export class InfoDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly registration: vscode.Disposable;
  private seq = 0;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(InfoScheme, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  /** Opens text in a read-only editor; name's extension picks the language (.diff, .md). */
  async show(name: string, text: string): Promise<vscode.Uri> {
    const uri = vscode.Uri.from({ scheme: InfoScheme, path: `/${++this.seq}/${name}` });
    this.texts.set(uri.toString(), text);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
    return uri;
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
