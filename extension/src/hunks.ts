// Pure logic of reviewing an edit hunk by hunk: what the file becomes with
// some hunks dropped, where each hunk sits in that text, and the answer.

import type { ApprovalRequestResult, Hunk } from "./protocol";

/** Splits text into lines, each keeping its terminator ("\n" or "\r\n"). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    lines.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) {
    lines.push(text.slice(start));
  }
  return lines;
}

/**
 * The 0-based index where a hunk's range begins. A unified diff header
 * gives the 1-based first line, except that an empty range names the line
 * before it ("@@ -0,0 +1,2 @@" inserts at the top).
 */
function firstIndex(start: number, count: number): number {
  return count === 0 ? start : start - 1;
}

/** Where a hunk landed in the composed text. */
export interface HunkPlace {
  id: number;
  /** 0-based line of the hunk's first change in the composed text. */
  line: number;
  kept: boolean;
}

export interface Composed {
  text: string;
  places: HunkPlace[];
}

/**
 * Composes the file from original, taking each kept hunk's lines from
 * proposed and each dropped hunk's from original. The hunks must describe
 * the change from original to proposed (their context lines are equal on
 * both sides), as the daemon's diff.ApplyHunks assumes too; with every hunk
 * kept the result is proposed.
 */
export function compose(
  original: string,
  proposed: string,
  hunks: readonly Hunk[],
  dropped: ReadonlySet<number>,
): Composed {
  const a = splitLines(original);
  const b = splitLines(proposed);
  const sorted = [...hunks].sort((x, y) => x.oldStart - y.oldStart);
  const out: string[] = [];
  const places: HunkPlace[] = [];
  let i = 0;
  for (const h of sorted) {
    const oldAt = Math.min(Math.max(firstIndex(h.oldStart, h.oldLines), i), a.length);
    const newAt = firstIndex(h.newStart, h.newLines);
    out.push(...a.slice(i, oldAt));
    const kept = !dropped.has(h.id);
    places.push({ id: h.id, line: out.length + leadingContext(h), kept });
    if (kept) {
      out.push(...b.slice(newAt, newAt + h.newLines));
    } else {
      out.push(...a.slice(oldAt, oldAt + h.oldLines));
    }
    i = Math.min(oldAt + h.oldLines, a.length);
  }
  out.push(...a.slice(i));
  const lastLine = Math.max(0, out.length - 1);
  for (const p of places) {
    p.line = Math.min(p.line, lastLine);
  }
  return { text: out.join(""), places };
}

/** Unchanged lines a hunk opens with, so a lens can sit on the first change. */
function leadingContext(h: Hunk): number {
  let n = 0;
  for (const l of h.lines ?? []) {
    if (!l.startsWith(" ")) {
      break;
    }
    n++;
  }
  return n;
}

export type Answer = "yes" | "always" | "skip" | "no";

/**
 * The answer to an edit approval. Skip and no carry nothing. For yes and
 * always: the user's own text when they typed into the proposal (it is the
 * truth, whatever hunks were dropped before); else, when some hunks were
 * dropped, the IDs of those kept; else nothing extra.
 */
export function editAnswer(
  answer: Answer,
  hunks: readonly Hunk[],
  dropped: ReadonlySet<number>,
  editedText: string | undefined,
): ApprovalRequestResult {
  if (answer === "skip" || answer === "no") {
    return { answer };
  }
  if (editedText !== undefined) {
    return { answer, content: editedText };
  }
  if (hunks.some((h) => dropped.has(h.id))) {
    return { answer, hunks: hunks.filter((h) => !dropped.has(h.id)).map((h) => h.id) };
  }
  return { answer };
}
