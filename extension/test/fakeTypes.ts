// Type-checked by `npm test` (its typecheck step), never run: the stand-in
// `vscode` module of the unit tests (fake/vscode.ts) may offer only what
// VS Code's API has. Each @ts-expect-error fails the typecheck if the line
// under it compiles, so each shows that a fake going wrong in that way is
// caught; the right shapes above them must compile.

import type * as vscode from "vscode";
import type { Only, Shape } from "./fake/api";
import type * as fakeModule from "./fake/vscode";
import { DiagnosticSeverity as FakeSeverity, Uri } from "./fake/vscode";

/** What the fake module exports besides the test's own handles. */
type Exports = Omit<typeof fakeModule, "fake" | "FakeDocument" | "FakeQuickPick" | "FakeStatusItem">;

/** Every name the fake exports is one of the vscode module's. */
export type ModuleChecked = Only<typeof vscode, Exports>;

/** VS Code's enum with other values (the name is part of what is compared). */
export enum DiagnosticSeverity {
  Error = 1,
  Warning = 2,
  Information = 3,
  Hint = 4,
}

export const rightShapes = {
  window: { showInformationMessage: (text: string) => Promise.resolve(text) } satisfies Shape<typeof vscode.window>,
  uri: Uri satisfies Only<typeof vscode.Uri, typeof Uri>,
  severity: FakeSeverity satisfies Only<typeof vscode.DiagnosticSeverity, typeof FakeSeverity>,
};

export type WrongShapes = [
  // @ts-expect-error the fake module exports a name VS Code's does not have.
  Only<typeof vscode, Exports & { Workspace: unknown }>,
  // @ts-expect-error a class with a member its VS Code counterpart lacks.
  Only<vscode.Uri, Uri & { basename: string }>,
  // @ts-expect-error a static member that vscode.Uri lacks.
  Only<typeof vscode.Uri, typeof Uri & { fromPath(p: string): Uri }>,
  // @ts-expect-error a method that VS Code would call with arguments the fake does not take.
  Only<vscode.Uri, { with(change: { path: number }): Uri }>,
  // @ts-expect-error an enum member VS Code does not have.
  Only<typeof vscode.DiagnosticSeverity, typeof FakeSeverity & { Fatal: 4 }>,
  // @ts-expect-error an enum whose values are not VS Code's.
  Only<typeof vscode.DiagnosticSeverity, typeof DiagnosticSeverity>,
];

export const wrongShapes = {
  // @ts-expect-error window has no showInfoMessage (a misnamed member).
  misnamed: { showInfoMessage: (text: string) => Promise.resolve(text) } satisfies Shape<typeof vscode.window>,
  // @ts-expect-error createOutputChannel takes the channel's name as a string.
  wrongParam: { createOutputChannel: (name: number) => name } satisfies Shape<typeof vscode.window>,
  // @ts-expect-error activeTextEditor is a value, not a function.
  wrongKind: { activeTextEditor: 3 } satisfies Shape<typeof vscode.window>,
};
