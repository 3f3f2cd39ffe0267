import { readFileSync } from "node:fs";
import type * as vscode from "vscode";
import type { Only, Shape } from "./api";

// A stand-in for the `vscode` module: the parts of the API the extension
// uses, in memory, with hooks for tests to script the user (message
// buttons, quick picks, input boxes) and to look at what happened. The
// test build aliases `vscode` to this file. Each namespace object
// `satisfies` its Shape and each class is listed in Checked at the end,
// so nothing here offers what VS Code does not (api.ts says how); the
// test's own handles are `fake`, FakeDocument and FakeQuickPick.

type Listener<T> = (e: T) => unknown;

/**
 * Subscribes a listener typed with VS Code's event to the fake's emitter,
 * whose events stand for VS Code's (the fake's objects have the members
 * the extension reads).
 */
function on<T>(emitter: EventEmitter<T>, l: (e: never) => unknown): Disposable {
  return emitter.event(l as Listener<T>);
}

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...ds: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (l: Listener<T>): Disposable => {
    this.listeners.add(l);
    return new Disposable(() => this.listeners.delete(l));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class CancellationTokenSource {
  private emitter = new EventEmitter<void>();
  private cancelled = false;
  readonly token: { readonly isCancellationRequested: boolean; onCancellationRequested: EventEmitter<void>["event"] };
  constructor() {
    const cancelled = () => this.cancelled;
    this.token = {
      get isCancellationRequested(): boolean {
        return cancelled();
      },
      onCancellationRequested: this.emitter.event,
    } satisfies Shape<vscode.CancellationToken>;
  }
  cancel(): void {
    if (!this.cancelled) {
      this.cancelled = true;
      this.emitter.fire();
    }
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? "", c.path ?? "", c.query ?? "", c.fragment ?? "");
  }
  static file(p: string): Uri {
    return new Uri("file", "", p.startsWith("/") ? p : "/" + p, "", "");
  }
  static parse(s: string): Uri {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(s);
    if (!m) {
      throw new Error(`bad uri ${s}`);
    }
    const g: (string | undefined)[] = m; // a group that did not take part is undefined
    return new Uri(g[1] ?? "", g[2] ?? "", decodeURIComponent(g[3] ?? ""), g[4] ?? "", g[5] ?? "");
  }
  static joinPath(base: Uri, ...segs: string[]): Uri {
    return new Uri(base.scheme, base.authority, [base.path.replace(/\/$/, ""), ...segs].join("/"), "", "");
  }
  get fsPath(): string {
    return this.path;
  }
  with(c: { path?: string; query?: string }): Uri {
    return new Uri(this.scheme, this.authority, c.path ?? this.path, c.query ?? this.query, this.fragment);
  }
  toString(): string {
    const auth = this.scheme === "file" || this.authority ? `//${this.authority}` : "";
    const path = encodeURI(this.path).replace(/[?#]/g, encodeURIComponent);
    return `${this.scheme}:${auth}${path}${this.query ? "?" + this.query : ""}${this.fragment ? "#" + this.fragment : ""}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    if (typeof a === "number" && typeof b === "number" && c !== undefined && d !== undefined) {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    } else if (typeof a !== "number" && typeof b !== "number") {
      this.start = a;
      this.end = b;
    } else {
      throw new Error("Range takes two positions or four numbers");
    }
  }
}

export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}

export class Diagnostic {
  code?: string | number | { value: string | number; target: Uri };
  source?: string;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export enum FileType {
  Unknown = 0,
  File = 1,
  Directory = 2,
}

export enum FileChangeType {
  Changed = 1,
  Created = 2,
  Deleted = 3,
}

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

export class FileSystemError extends Error {
  static FileNotFound(u?: unknown): FileSystemError {
    return new FileSystemError(`not found: ${String(u)}`);
  }
  static NoPermissions(u?: unknown): FileSystemError {
    return new FileSystemError(`no permissions: ${String(u)}`);
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}

export class MarkdownString {
  value: string;
  constructor(
    value = "",
    readonly supportThemeIcons = false,
  ) {
    this.value = value;
  }
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
  appendText(s: string): this {
    this.value += s;
    return this;
  }
}

export class TreeItem {
  iconPath?: ThemeIcon;
  description?: string;
  tooltip?: string;
  id?: string;
  command?: { title: string; command: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export class CodeLens {
  constructor(
    readonly range: Range,
    readonly command?: { title: string; command: string; arguments?: unknown[] },
  ) {}
}

export class LanguageModelTextPart {
  constructor(readonly value: string) {}
}

export class LanguageModelToolResult {
  constructor(readonly content: LanguageModelTextPart[]) {}
}

export class LanguageModelToolCallPart {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly input: object,
  ) {}
}

export class LanguageModelToolResultPart {
  constructor(
    readonly callId: string,
    readonly content: unknown[],
  ) {}
}

export enum LanguageModelChatMessageRole {
  User = 1,
  Assistant = 2,
}

export class LanguageModelChatMessage {
  constructor(
    readonly role: LanguageModelChatMessageRole,
    readonly content: unknown[],
  ) {}
  static User(content: string | unknown[]): LanguageModelChatMessage {
    return new LanguageModelChatMessage(
      LanguageModelChatMessageRole.User,
      typeof content === "string" ? [new LanguageModelTextPart(content)] : content,
    );
  }
  static Assistant(content: string | unknown[]): LanguageModelChatMessage {
    return new LanguageModelChatMessage(
      LanguageModelChatMessageRole.Assistant,
      typeof content === "string" ? [new LanguageModelTextPart(content)] : content,
    );
  }
}

export class LanguageModelError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
  static NoPermissions(message = ""): LanguageModelError {
    return new LanguageModelError(message, "NoPermissions");
  }
  static Blocked(message = ""): LanguageModelError {
    return new LanguageModelError(message, "Blocked");
  }
  static NotFound(message = ""): LanguageModelError {
    return new LanguageModelError(message, "NotFound");
  }
}

export class TabInputText {
  constructor(readonly uri: Uri) {}
}

export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}

export class TextEdit {
  constructor(
    readonly range: Range,
    readonly newText: string,
  ) {}
}

export class WorkspaceEdit {
  private readonly edits: [Uri, TextEdit[]][] = [];
  replace(uri: Uri, range: Range, newText: string): void {
    const e = new TextEdit(range, newText);
    const entry = this.edits.find(([u]) => u.toString() === uri.toString());
    if (entry) {
      entry[1].push(e);
    } else {
      this.edits.push([uri, [e]]);
    }
  }
  entries(): [Uri, TextEdit[]][] {
    return this.edits;
  }
}

/** A text document held in memory. */
export class FakeDocument {
  isDirty = false;
  isClosed = false;
  constructor(
    readonly uri: Uri,
    private text: string,
  ) {}
  getText(): string {
    return this.text;
  }
  get lineCount(): number {
    return this.text.split("\n").length;
  }
  offsetAt(p: Position): number {
    const lines = this.text.split("\n");
    let off = 0;
    for (let i = 0; i < p.line && i < lines.length; i++) {
      off += lines[i].length + 1;
    }
    return Math.min(off + p.character, this.text.length);
  }
  positionAt(offset: number): Position {
    const before = this.text.slice(0, offset).split("\n");
    return new Position(before.length - 1, before[before.length - 1].length);
  }
  /** What the user typing does. */
  type(newText: string): void {
    this.text = newText;
    this.isDirty = true;
    fake.events.changeDocument.fire({ document: this, contentChanges: [] });
  }
  setText(newText: string): void {
    this.text = newText;
  }
  async save(): Promise<boolean> {
    const p = fake.fileSystems.get(this.uri.scheme);
    if (p) {
      await p.writeFile(this.uri, Buffer.from(this.text, "utf8"), { create: false, overwrite: true });
    }
    this.isDirty = false;
    fake.events.saveDocument.fire(this);
    return true;
  }
}

export interface Message {
  kind: "info" | "warning" | "error";
  text: string;
  items: string[];
  modal: boolean;
}

/** A quick pick the test drives: it sees the items and decides what the user does. */
export class FakeQuickPick<T extends { label: string }> {
  title?: string;
  placeholder?: string;
  items: T[] = [];
  selectedItems: T[] = [];
  activeItems: T[] = [];
  value = "";
  ignoreFocusOut = false;
  private accept = new EventEmitter<void>();
  private hideEmitter = new EventEmitter<void>();
  readonly onDidAccept = this.accept.event;
  readonly onDidHide = this.hideEmitter.event;
  visible = false;
  show(): void {
    this.visible = true;
    // The list holds quick picks of every item type; the test knows each one's.
    const qp = this as unknown as FakeQuickPick<vscode.QuickPickItem>;
    fake.quickPicks.push(qp);
    queueMicrotask(() => fake.onQuickPick(qp));
  }
  /** The user types text and presses Enter on the item shown first (or none). */
  acceptWith(value: string, item?: T): void {
    this.value = value;
    this.selectedItems = item ? [item] : [];
    this.accept.fire();
  }
  hide(): void {
    if (this.visible) {
      this.visible = false;
      this.hideEmitter.fire();
    }
  }
  dispose(): void {
    this.accept.dispose();
    this.hideEmitter.dispose();
  }
}

function newEvents() {
  return {
    changeDiagnostics: new EventEmitter<{ uris: Uri[] }>(),
    changeDocument: new EventEmitter<{ document: FakeDocument; contentChanges: unknown[] }>(),
    saveDocument: new EventEmitter<FakeDocument>(),
    closeDocument: new EventEmitter<FakeDocument>(),
    openDocument: new EventEmitter<FakeDocument>(),
    changeConfiguration: new EventEmitter<{ affectsConfiguration(s: string): boolean }>(),
    changeFolders: new EventEmitter<unknown>(),
    changeTabs: new EventEmitter<{ opened: unknown[]; closed: unknown[]; changed: unknown[] }>(),
    changeActiveEditor: new EventEmitter<{ document: FakeDocument } | undefined>(),
  };
}

/** The test's handle on the fake editor. */
export const fake = {
  config: {} as Record<string, unknown>,
  folders: [] as { uri: Uri; name: string; index: number }[],
  appRoot: "",
  diagnostics: new Map<string, { uri: Uri; diags: Diagnostic[] }>(),
  documents: [] as FakeDocument[],
  messages: [] as Message[],
  logs: [] as string[],
  executed: [] as { command: string; args: unknown[] }[],
  contexts: new Map<string, unknown>(),
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  tools: new Map<string, vscode.LanguageModelTool<object>>(),
  invoked: [] as { name: string; options: vscode.LanguageModelToolInvocationOptions<object> }[],
  fileSystems: new Map<string, vscode.FileSystemProvider>(),
  contentProviders: new Map<string, vscode.TextDocumentContentProvider>(),
  codeLensProviders: [] as { selector: vscode.DocumentSelector; provider: vscode.CodeLensProvider }[],
  treeProviders: new Map<string, vscode.TreeDataProvider<unknown>>(),
  treeViews: new Map<string, { badge?: { value: number; tooltip: string }; dispose(): void }>(),
  quickPicks: [] as FakeQuickPick<vscode.QuickPickItem>[],
  shownDocuments: [] as FakeDocument[],
  tabs: [] as { input: unknown }[],
  /** The editor with the keyboard, as the extension host last heard (setActiveEditor). */
  activeEditor: undefined as { document: FakeDocument } | undefined,
  statusItems: [] as FakeStatusItem[],
  events: newEvents(),
  /** Decides which button the user presses on a message; undefined dismisses it. */
  onMessage: (() => undefined) as (m: Message) => string | undefined | Promise<string | undefined>,
  onQuickPick: (() => undefined) as (qp: FakeQuickPick<vscode.QuickPickItem>) => void,
  onShowQuickPick: (() => undefined) as (items: vscode.QuickPickItem[]) => vscode.QuickPickItem | undefined,
  onInputBox: (() => undefined) as (opts: vscode.InputBoxOptions | undefined) => string | undefined,
  /**
   * Plays VS Code running a tool another tool invoked (the approval tool's
   * confirmation, a compose program's call): by default, the registered
   * tool's invoke runs.
   */
  onInvokeTool: runRegisteredTool,

  reset(): void {
    this.config = {};
    this.folders = [];
    this.appRoot = "";
    this.diagnostics.clear();
    this.documents = [];
    this.messages = [];
    this.logs = [];
    this.executed = [];
    this.contexts.clear();
    this.commands.clear();
    this.tools.clear();
    this.invoked = [];
    this.fileSystems.clear();
    this.contentProviders.clear();
    this.codeLensProviders = [];
    this.treeProviders.clear();
    this.treeViews.clear();
    this.quickPicks = [];
    this.shownDocuments = [];
    this.tabs = [];
    this.activeEditor = undefined;
    this.statusItems = [];
    this.events = newEvents();
    this.onMessage = () => undefined;
    this.onQuickPick = () => undefined;
    this.onShowQuickPick = () => undefined;
    this.onInputBox = () => undefined;
    this.onInvokeTool = runRegisteredTool;
  },

  /** The extension host hears that doc's editor has the keyboard (undefined: none). */
  setActiveEditor(doc: FakeDocument | undefined): void {
    this.activeEditor = doc ? { document: doc } : undefined;
    this.events.changeActiveEditor.fire(this.activeEditor);
  },

  setDiagnostics(uri: Uri, diags: Diagnostic[], fire = true): void {
    this.diagnostics.set(uri.toString(), { uri, diags });
    if (fire) {
      this.events.changeDiagnostics.fire({ uris: [uri] });
    }
  },

  /** The tool the extension registered under name; a test fails without it. */
  tool(name: string): vscode.LanguageModelTool<object> {
    const t = this.tools.get(name);
    if (!t) {
      throw new Error(`no tool ${name} in this test`);
    }
    return t;
  },

  /**
   * A chat turn's token as a test makes it: VS Code types it as opaque
   * (never), and at run time it is an object naming the turn.
   */
  turnToken(t: object | undefined): never {
    return t as never;
  },

  /** What the content provider registered for uri's scheme gives for it. */
  async provided(uri: Uri): Promise<string | null | undefined> {
    const cp = this.contentProviders.get(uri.scheme);
    if (!cp) {
      throw new Error(`no content provider for ${uri.scheme}`);
    }
    return cp.provideTextDocumentContent(uri, new CancellationTokenSource().token);
  },

  /** The text of a tool's result, its text parts joined. */
  text(res: vscode.LanguageModelToolResult | null | undefined): string {
    return (res?.content ?? []).map((p) => (p instanceof LanguageModelTextPart ? p.value : "")).join("");
  },

  document(uri: Uri): FakeDocument | undefined {
    return this.documents.find((d) => d.uri.toString() === uri.toString());
  },

  addDocument(uri: Uri, text: string): FakeDocument {
    const d = new FakeDocument(uri, text);
    this.documents.push(d);
    this.events.openDocument.fire(d);
    return d;
  },

  lenses(uri: Uri): CodeLens[] {
    const doc = this.document(uri);
    if (!doc) {
      return [];
    }
    const token = new CancellationTokenSource().token;
    return this.codeLensProviders
      .filter((p) => typeof p.selector === "object" && "scheme" in p.selector && p.selector.scheme === uri.scheme)
      .flatMap((p) => {
        // The extension's providers answer at once, with a list.
        const lenses = p.provider.provideCodeLenses(textDocument(doc), token);
        return Array.isArray(lenses) ? lenses : [];
      });
  },
};

async function message(kind: Message["kind"], text: string, ...rest: unknown[]): Promise<string | undefined> {
  let modal = false;
  if (rest.length > 0 && typeof rest[0] === "object" && rest[0] !== null) {
    modal = !!(rest.shift() as { modal?: boolean }).modal;
  }
  const m: Message = { kind, text, items: rest as string[], modal };
  fake.messages.push(m);
  return fake.onMessage(m);
}

/** A status bar item; visible is the test's (VS Code's item does not say). */
export class FakeStatusItem {
  text = "";
  tooltip: string | MarkdownString | undefined;
  command: string | vscode.Command | undefined;
  name = "";
  backgroundColor: ThemeColor | undefined;
  accessibilityInformation: vscode.AccessibilityInformation | undefined;
  visible = false;
  constructor(readonly id: string) {}
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  dispose(): void {
    this.visible = false;
  }
}

function logChannel(name: string) {
  const line = (level: string) => (msg: string) => fake.logs.push(`${level} ${msg}`);
  return {
    name,
    trace: line("trace"),
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: (m: string | Error) => fake.logs.push(`error ${m instanceof Error ? m.message : m}`),
    append: line("info"),
    appendLine: line("info"),
    // VS Code declares show twice, once deprecated; the fake's is both.
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the member is named, not called
    show: () => fake.executed.push({ command: "<show log>", args: [] }),
    dispose: () => undefined,
  } satisfies Shape<vscode.LogOutputChannel>;
}

export const window = {
  createOutputChannel: (name: string) => logChannel(name),
  createStatusBarItem: (id?: string | StatusBarAlignment) => {
    const item = new FakeStatusItem(typeof id === "string" ? id : "");
    fake.statusItems.push(item);
    return item;
  },
  showInformationMessage: (text: string, ...rest: unknown[]) => message("info", text, ...rest),
  showWarningMessage: (text: string, ...rest: unknown[]) => message("warning", text, ...rest),
  showErrorMessage: (text: string, ...rest: unknown[]) => message("error", text, ...rest),
  createQuickPick: () => new FakeQuickPick(),
  showQuickPick: async (items: readonly vscode.QuickPickItem[] | Thenable<readonly vscode.QuickPickItem[]>) =>
    fake.onShowQuickPick([...(await items)]),
  showInputBox: (opts?: vscode.InputBoxOptions) => Promise.resolve(fake.onInputBox(opts)),
  registerTreeDataProvider: (id: string, p: vscode.TreeDataProvider<unknown>) => {
    fake.treeProviders.set(id, p);
    return new Disposable(() => fake.treeProviders.delete(id));
  },
  createTreeView: (id: string, opts: vscode.TreeViewOptions<unknown>) => {
    fake.treeProviders.set(id, opts.treeDataProvider);
    const view = {
      badge: undefined as { value: number; tooltip: string } | undefined,
      dispose: () => {
        fake.treeProviders.delete(id);
        fake.treeViews.delete(id);
      },
    } satisfies Shape<vscode.TreeView<unknown>>;
    fake.treeViews.set(id, view);
    return view;
  },
  showTextDocument: async (target: FakeDocument | Uri) => {
    const doc = target instanceof Uri ? await workspace.openTextDocument(target) : target;
    fake.shownDocuments.push(doc);
    return { document: doc };
  },
  get activeTextEditor(): { document: FakeDocument } | undefined {
    return fake.activeEditor;
  },
  onDidChangeActiveTextEditor: (l: Listener<vscode.TextEditor | undefined>) => on(fake.events.changeActiveEditor, l),
  tabGroups: {
    get all() {
      return [{ tabs: fake.tabs }];
    },
    onDidChangeTabs: (l: Listener<vscode.TabChangeEvent>) => on(fake.events.changeTabs, l),
    // A tab, a group (the fake has one, holding every tab), or a list of either.
    close: (target: TabOrGroup | readonly TabOrGroup[]) => {
      const targets: readonly TabOrGroup[] = isList(target) ? target : [target];
      const closing = new Set(targets.flatMap((t) => ("tabs" in t ? t.tabs : [t])));
      fake.tabs = fake.tabs.filter((t) => !closing.has(t));
      fake.events.changeTabs.fire({ opened: [], closed: [...closing], changed: [] });
      return Promise.resolve(true);
    },
  } satisfies Shape<vscode.TabGroups>,
} satisfies Shape<typeof vscode.window>;

let untitled = 0;

interface FakeTab {
  input: unknown;
}
type TabOrGroup = FakeTab | { tabs: readonly FakeTab[] };

function isList<T>(x: T | readonly T[]): x is readonly T[] {
  return Array.isArray(x);
}

export const workspace = {
  get workspaceFolders() {
    return fake.folders.length > 0 ? fake.folders : undefined;
  },
  getConfiguration: (section?: string) =>
    ({
      get: <T>(key: string, dflt: T): T => {
        const k = section ? `${section}.${key}` : key;
        return k in fake.config ? (fake.config[k] as T) : dflt;
      },
    }) satisfies Shape<vscode.WorkspaceConfiguration>,
  onDidChangeConfiguration: (l: Listener<vscode.ConfigurationChangeEvent>) => on(fake.events.changeConfiguration, l),
  onDidChangeWorkspaceFolders: (l: Listener<vscode.WorkspaceFoldersChangeEvent>) => on(fake.events.changeFolders, l),
  onDidChangeTextDocument: (l: Listener<vscode.TextDocumentChangeEvent>) => on(fake.events.changeDocument, l),
  onDidSaveTextDocument: (l: Listener<vscode.TextDocument>) => on(fake.events.saveDocument, l),
  onDidCloseTextDocument: (l: Listener<vscode.TextDocument>) => on(fake.events.closeDocument, l),
  onDidOpenTextDocument: (l: Listener<vscode.TextDocument>) => on(fake.events.openDocument, l),
  get textDocuments() {
    return fake.documents;
  },
  registerFileSystemProvider: (scheme: string, p: vscode.FileSystemProvider) => {
    fake.fileSystems.set(scheme, p);
    // As the editor does: a document without unsaved changes is reloaded
    // when its file changes.
    const sub = p.onDidChangeFile((events) => {
      for (const e of events) {
        const doc = fake.document(e.uri);
        if (e.type !== FileChangeType.Changed || !doc || doc.isDirty) {
          continue;
        }
        const data = p.readFile(e.uri);
        if (!(data instanceof Uint8Array)) {
          throw new Error("the fake reloads only from a provider that reads at once");
        }
        const text = Buffer.from(data).toString("utf8");
        if (text !== doc.getText()) {
          doc.setText(text);
          queueMicrotask(() => fake.events.changeDocument.fire({ document: doc, contentChanges: [] }));
        }
      }
    });
    return new Disposable(() => {
      sub.dispose();
      fake.fileSystems.delete(scheme);
    });
  },
  registerTextDocumentContentProvider: (scheme: string, p: vscode.TextDocumentContentProvider) => {
    fake.contentProviders.set(scheme, p);
    return new Disposable(() => fake.contentProviders.delete(scheme));
  },
  openTextDocument: async (target?: Uri | string | { language?: string; content?: string }) => {
    if (typeof target === "string") {
      target = Uri.file(target);
    }
    if (!(target instanceof Uri)) {
      // An untitled document with the content given.
      return fake.addDocument(Uri.from({ scheme: "untitled", path: `Untitled-${++untitled}` }), target?.content ?? "");
    }
    const uri = target;
    const open = fake.document(uri);
    if (open) {
      return open;
    }
    let text: string;
    const fsp = fake.fileSystems.get(uri.scheme);
    const cp = fake.contentProviders.get(uri.scheme);
    if (fsp) {
      text = Buffer.from(await fsp.readFile(uri)).toString("utf8");
    } else if (cp) {
      text = (await cp.provideTextDocumentContent(uri, new CancellationTokenSource().token)) ?? "";
    } else if (uri.scheme === "file") {
      text = readFileSync(uri.fsPath, "utf8");
    } else {
      throw new Error(`no provider for ${uri.toString()}`);
    }
    return fake.addDocument(uri, text);
  },
  applyEdit: (edit: vscode.WorkspaceEdit) => {
    for (const [uri, edits] of edit.entries()) {
      const doc = fake.document(uri);
      if (!doc) {
        return Promise.resolve(false);
      }
      for (const e of edits) {
        const t = doc.getText();
        const next = t.slice(0, doc.offsetAt(e.range.start)) + e.newText + t.slice(doc.offsetAt(e.range.end));
        doc.setText(next);
      }
      doc.isDirty = true;
      fake.events.changeDocument.fire({ document: doc, contentChanges: [] });
    }
    return Promise.resolve(true);
  },
} satisfies Shape<typeof vscode.workspace>;

export const languages = {
  getDiagnostics: (uri?: Uri): Diagnostic[] | [Uri, Diagnostic[]][] => {
    if (uri) {
      return fake.diagnostics.get(uri.toString())?.diags ?? [];
    }
    return [...fake.diagnostics.values()].map((x): [Uri, Diagnostic[]] => [x.uri, x.diags]);
  },
  onDidChangeDiagnostics: (l: Listener<vscode.DiagnosticChangeEvent>) => on(fake.events.changeDiagnostics, l),
  registerCodeLensProvider: (selector: vscode.DocumentSelector, provider: vscode.CodeLensProvider) => {
    const entry = { selector, provider };
    fake.codeLensProviders.push(entry);
    return new Disposable(() => (fake.codeLensProviders = fake.codeLensProviders.filter((x) => x !== entry)));
  },
} satisfies Shape<typeof vscode.languages>;

export const commands = {
  registerCommand: (id: string, fn: (...args: never[]) => unknown) => {
    if (fake.commands.has(id)) {
      throw new Error(`command ${id} already registered`);
    }
    // Run by a test with the arguments VS Code would pass, untyped there too.
    fake.commands.set(id, fn as (...args: unknown[]) => unknown);
    return new Disposable(() => fake.commands.delete(id));
  },
  executeCommand: async (command: string, ...args: unknown[]) => {
    fake.executed.push({ command, args });
    if (command === "setContext") {
      fake.contexts.set(args[0] as string, args[1]);
      return undefined;
    }
    if (command === "vscode.diff") {
      fake.tabs.push({ input: new TabInputTextDiff(args[0] as Uri, args[1] as Uri) });
      return undefined;
    }
    if (command === "workbench.action.files.saveWithoutFormatting") {
      // VS Code saves the active editor's document, and no other.
      await fake.activeEditor?.document.save();
      return undefined;
    }
    const fn = fake.commands.get(command);
    return fn ? fn(...args) : undefined;
  },
} satisfies Shape<typeof vscode.commands>;

/** Runs a registered tool as VS Code would: its invoke, with the caller's options. */
async function runRegisteredTool(
  name: string,
  options: vscode.LanguageModelToolInvocationOptions<object>,
  token?: vscode.CancellationToken,
): Promise<vscode.LanguageModelToolResult> {
  const res = await fake.tool(name).invoke(options, token ?? new CancellationTokenSource().token);
  if (!res) {
    throw new Error(`tool ${name} gave no result`);
  }
  return res;
}

/** The fake document as the extension sees it: Checked holds it to TextDocument's members, which it has in part. */
function textDocument(d: FakeDocument): vscode.TextDocument {
  return d as unknown as vscode.TextDocument;
}

export const lm = {
  invokeTool: (
    name: string,
    options: vscode.LanguageModelToolInvocationOptions<object>,
    token?: vscode.CancellationToken,
  ) => {
    fake.invoked.push({ name, options });
    return fake.onInvokeTool(name, options, token);
  },
  registerTool: (name: string, tool: vscode.LanguageModelTool<object>) => {
    if (fake.tools.has(name)) {
      throw new Error(`tool ${name} already registered`);
    }
    fake.tools.set(name, tool);
    return new Disposable(() => fake.tools.delete(name));
  },
} satisfies Shape<typeof vscode.lm>;

export const env = {
  get appRoot(): string {
    return fake.appRoot;
  },
} satisfies Shape<typeof vscode.env>;

/**
 * Each class above against its VS Code counterpart, the instance side and
 * the static side (FakeDocument stands for a TextDocument, FakeQuickPick
 * for a QuickPick; their test-only helpers are named).
 */
export type Checked = [
  Only<vscode.Disposable, Disposable>,
  Only<typeof vscode.Disposable, typeof Disposable>,
  Only<vscode.EventEmitter<unknown>, EventEmitter<unknown>>,
  Only<typeof vscode.EventEmitter, typeof EventEmitter>,
  Only<vscode.CancellationTokenSource, CancellationTokenSource>,
  Only<typeof vscode.CancellationTokenSource, typeof CancellationTokenSource>,
  Only<vscode.Uri, Uri>,
  Only<typeof vscode.Uri, typeof Uri>,
  Only<vscode.Position, Position>,
  Only<vscode.Range, Range>,
  Only<typeof vscode.DiagnosticSeverity, typeof DiagnosticSeverity>,
  Only<vscode.Diagnostic, Diagnostic>,
  Only<typeof vscode.StatusBarAlignment, typeof StatusBarAlignment>,
  Only<typeof vscode.TreeItemCollapsibleState, typeof TreeItemCollapsibleState>,
  Only<typeof vscode.FileType, typeof FileType>,
  Only<typeof vscode.FileChangeType, typeof FileChangeType>,
  Only<typeof vscode.QuickPickItemKind, typeof QuickPickItemKind>,
  Only<vscode.FileSystemError, FileSystemError>,
  Only<typeof vscode.FileSystemError, typeof FileSystemError>,
  Only<vscode.ThemeColor, ThemeColor>,
  Only<vscode.ThemeIcon, ThemeIcon>,
  Only<vscode.MarkdownString, MarkdownString>,
  Only<vscode.TreeItem, TreeItem>,
  Only<vscode.CodeLens, CodeLens>,
  Only<vscode.LanguageModelTextPart, LanguageModelTextPart>,
  Only<vscode.LanguageModelToolResult, LanguageModelToolResult>,
  Only<vscode.LanguageModelToolCallPart, LanguageModelToolCallPart>,
  Only<vscode.LanguageModelToolResultPart, LanguageModelToolResultPart>,
  Only<typeof vscode.LanguageModelChatMessageRole, typeof LanguageModelChatMessageRole>,
  Only<vscode.LanguageModelChatMessage, LanguageModelChatMessage>,
  Only<typeof vscode.LanguageModelChatMessage, typeof LanguageModelChatMessage>,
  Only<vscode.LanguageModelError, LanguageModelError>,
  Only<typeof vscode.LanguageModelError, typeof LanguageModelError>,
  Only<vscode.TabInputText, TabInputText>,
  Only<vscode.TabInputTextDiff, TabInputTextDiff>,
  Only<vscode.TextEdit, TextEdit>,
  Only<vscode.WorkspaceEdit, WorkspaceEdit>,
  Only<vscode.TextDocument, Omit<FakeDocument, "type" | "setText">>,
  Only<vscode.QuickPick<vscode.QuickPickItem>, Omit<FakeQuickPick<vscode.QuickPickItem>, "acceptWith" | "visible">>,
  Only<vscode.StatusBarItem, Omit<FakeStatusItem, "visible">>,
];
