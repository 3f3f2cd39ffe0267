// What each chat request did, as the extension saw its tool calls go by:
// the first calls' titles and, per file, the lines added and removed by the
// diffs written. The checkpoints browser shows it beside the daemon's
// checkpoint of the same request. Kept in the workspace's state, so it
// outlives a window reload, for the most recent requests only.

import type * as vscode from "vscode";

export interface FileCounts {
  added: number;
  removed: number;
}

export interface RequestEntry {
  /** When the request's first call ran (ms since the epoch). */
  started: number;
  /** The titles of its first calls, in order. */
  calls: string[];
  /** Lines added and removed per file (as the diffs name them). */
  files: Record<string, FileCounts>;
}

const storeKey = "tether.requests";
const keepRequests = 100;
const keepCalls = 3;

/** Counts the added and removed lines of each file in a unified diff. */
export function diffCounts(diff: string): Record<string, FileCounts> {
  const out: Record<string, FileCounts> = {};
  let file: FileCounts | undefined;
  let inHunk = false;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++ ")) {
      let name = line.slice(4).replace(/\t.*$/, "");
      if (name === "/dev/null") {
        continue; // a deletion: the file was named in the --- line
      }
      name = name.replace(/^b\//, "");
      file = out[name] ??= { added: 0, removed: 0 };
      inHunk = false;
      continue;
    }
    if (line.startsWith("--- ")) {
      const name = line.slice(4).replace(/\t.*$/, "");
      if (name !== "/dev/null") {
        file = out[name.replace(/^a\//, "")] ??= { added: 0, removed: 0 };
      }
      inHunk = false;
      continue;
    }
    if (line.startsWith("@@")) {
      inHunk = true;
      continue;
    }
    if (!inHunk || !file) {
      continue;
    }
    if (line.startsWith("+")) {
      file.added++;
    } else if (line.startsWith("-")) {
      file.removed++;
    }
  }
  return out;
}

export class RequestLog {
  private entries: Record<string, RequestEntry>;

  constructor(
    private readonly memento?: vscode.Memento,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = { ...(memento?.get<Record<string, RequestEntry>>(storeKey) ?? {}) };
  }

  /** Notes a finished call of a request: its title and the diff it wrote. */
  record(requestId: string, title: string, diff: string | undefined): void {
    if (!requestId) {
      return;
    }
    const e = (this.entries[requestId] ??= { started: this.now(), calls: [], files: {} });
    if (title && e.calls.length < keepCalls && !e.calls.includes(title)) {
      e.calls.push(title);
    }
    if (diff) {
      for (const [file, c] of Object.entries(diffCounts(diff))) {
        const f = (e.files[file] ??= { added: 0, removed: 0 });
        f.added += c.added;
        f.removed += c.removed;
      }
    }
    this.prune();
    void this.memento?.update(storeKey, this.entries);
  }

  get(requestId: string): RequestEntry | undefined {
    return this.entries[requestId];
  }

  private prune(): void {
    const ids = Object.keys(this.entries);
    if (ids.length <= keepRequests) {
      return;
    }
    ids.sort((a, b) => this.entries[a].started - this.entries[b].started);
    this.entries = Object.fromEntries(ids.slice(ids.length - keepRequests).map((id) => [id, this.entries[id]]));
  }
}
