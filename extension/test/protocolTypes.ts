// Type-checked by `npm test` (its typecheck step), never run: a call to the
// daemon, or a handler of the daemon's calls, whose shape is not its
// method's does not compile. Each @ts-expect-error fails the typecheck if
// the line under it compiles; the right shapes above them must compile.

import type { Daemon } from "../src/daemon";
import {
  approvalRequest,
  toolsActivity,
  toolsCall,
  undoList,
  workspaceDirty,
  type ApprovalRequestResult,
  type ToolCallResult,
  type UndoListResult,
} from "../src/protocol";

export async function rightShapes(d: Daemon): Promise<[ToolCallResult, UndoListResult]> {
  const r = await d.request(toolsCall, { name: "read_file", arguments: { path: "a" }, requestId: "r" });
  const l = await d.request(undoList, {});
  d.notify(workspaceDirty, { uris: [] });
  d.onRequest(approvalRequest, (p): ApprovalRequestResult => ({ answer: p.kind === "edit" ? "yes" : "no" }));
  d.onNotification(toolsActivity, (a): string => a.callId);
  return [r, l];
}

export async function wrongShapes(d: Daemon): Promise<unknown[]> {
  // @ts-expect-error tools/call needs the tool's name.
  const a = await d.request(toolsCall, { arguments: {}, requestId: "r" });
  // @ts-expect-error a misspelt field.
  const b = await d.request(toolsCall, { name: "x", arguments: {}, requestID: "r" });
  // @ts-expect-error undo/list answers a list of checkpoints, not a tool result.
  const c: ToolCallResult = await d.request(undoList, {});
  // @ts-expect-error undo/list takes no params.
  const e = await d.request(undoList, { id: "x" });
  // @ts-expect-error workspace/dirty carries uris, not one uri.
  d.notify(workspaceDirty, { uri: "file:///x" });
  // @ts-expect-error an approval's answer is one of Answer's values.
  d.onRequest(approvalRequest, () => ({ answer: "maybe" }));
  // @ts-expect-error an approval's params have no question (user/ask's do).
  d.onRequest(approvalRequest, (p) => ({ answer: p.question }));
  // @ts-expect-error tools/activity's params are an Activity.
  d.onNotification(toolsActivity, (a: { items: unknown[] }) => a.items);
  // @ts-expect-error a method is named by its declaration, never by a string.
  const f = await d.request("tools/call", {});
  return [a, b, c, e, f];
}
