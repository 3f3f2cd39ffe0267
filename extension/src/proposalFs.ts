import * as vscode from "vscode";

/**
 * ProposalFs holds the proposed side of each edit under review, in memory,
 * as a writable file system: the user can type into the proposal in the
 * diff editor and save it without a dialog, and nothing touches the disk.
 */
export class ProposalFs implements vscode.FileSystemProvider {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  set(uri: vscode.Uri, text: string): void {
    const existed = this.files.has(uri.path);
    this.files.set(uri.path, { data: Buffer.from(text, "utf8"), mtime: Date.now() });
    this.emitter.fire([{ type: existed ? vscode.FileChangeType.Changed : vscode.FileChangeType.Created, uri }]);
  }

  text(uri: vscode.Uri): string | undefined {
    const f = this.files.get(uri.path);
    return f ? Buffer.from(f.data).toString("utf8") : undefined;
  }

  remove(uri: vscode.Uri): void {
    if (this.files.delete(uri.path)) {
      this.emitter.fire([{ type: vscode.FileChangeType.Deleted, uri }]);
    }
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const f = this.files.get(uri.path);
    if (!f) {
      // Parent folders of a proposal exist implicitly.
      if ([...this.files.keys()].some((k) => k.startsWith(uri.path.replace(/\/?$/, "/")))) {
        return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
      }
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return { type: vscode.FileType.File, ctime: f.mtime, mtime: f.mtime, size: f.data.byteLength };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    // A proposal is one file: there is no directory to make.
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const f = this.files.get(uri.path);
    if (!f) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return f.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.files.has(uri.path)) {
      // Only proposals under review exist; a save elsewhere has nowhere to go.
      throw vscode.FileSystemError.NoPermissions(uri);
    }
    this.files.set(uri.path, { data: content, mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    this.remove(uri);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions("proposals cannot be renamed");
  }
}
