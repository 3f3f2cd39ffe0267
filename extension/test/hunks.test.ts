import assert from "node:assert/strict";
import { test } from "node:test";

import { compose, editAnswer, splitLines } from "../src/hunks";
import type { Hunk } from "../src/protocol";
import { hunks, original, proposed } from "./twoHunks";

test("splitLines keeps each line's terminator", () => {
  const cases: [string, string[]][] = [
    ["", []],
    ["a", ["a"]],
    ["a\n", ["a\n"]],
    ["a\r\nb\nc", ["a\r\n", "b\n", "c"]],
    ["\n\n", ["\n", "\n"]],
  ];
  for (const [text, want] of cases) {
    assert.deepEqual(splitLines(text), want, JSON.stringify(text));
  }
});

test("compose: every hunk kept is the proposal, none kept is the original", () => {
  assert.equal(compose(original, proposed, hunks, new Set()).text, proposed);
  assert.equal(compose(original, proposed, hunks, new Set([1, 2])).text, original);
});

test("compose: dropping one hunk keeps the other", () => {
  assert.equal(compose(original, proposed, hunks, new Set([1])).text, original.replace("l15", "L15"));
  assert.equal(compose(original, proposed, hunks, new Set([2])).text, original.replace("l2\n", "L2\n"));
});

test("compose: places sit on each hunk's first change", () => {
  const { places } = compose(original, proposed, hunks, new Set([2]));
  assert.deepEqual(places, [
    { id: 1, line: 1, kept: true },
    { id: 2, line: 14, kept: false },
  ]);
});

test("compose: insertions at the top, deletions at the end, CRLF and no final newline", () => {
  const cases: { name: string; a: string; b: string; hunks: Hunk[] }[] = [
    {
      name: "insert at top",
      a: "x\n",
      b: "new\nx\n",
      hunks: [{ id: 1, oldStart: 1, oldLines: 1, newStart: 1, newLines: 2, lines: ["+new", " x"] }],
    },
    {
      name: "insert into empty file",
      a: "",
      b: "a\nb\n",
      hunks: [{ id: 1, oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ["+a", "+b"] }],
    },
    {
      name: "delete everything",
      a: "a\nb\n",
      b: "",
      hunks: [{ id: 1, oldStart: 1, oldLines: 2, newStart: 0, newLines: 0, lines: ["-a", "-b"] }],
    },
    {
      name: "crlf kept byte for byte",
      a: "a\r\nb\r\n",
      b: "a\r\nB\r\n",
      hunks: [{ id: 1, oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [" a", "-b", "+B"] }],
    },
    {
      name: "no newline at end",
      a: "a\nb",
      b: "a\nb\nc",
      hunks: [{ id: 1, oldStart: 1, oldLines: 2, newStart: 1, newLines: 3, lines: [" a", "-b", "+b", "+c"] }],
    },
  ];
  for (const c of cases) {
    assert.equal(compose(c.a, c.b, c.hunks, new Set()).text, c.b, `${c.name}: all kept`);
    assert.equal(compose(c.a, c.b, c.hunks, new Set([1])).text, c.a, `${c.name}: all dropped`);
  }
});

test("editAnswer", () => {
  const cases: { name: string; args: Parameters<typeof editAnswer>; want: object }[] = [
    { name: "plain yes", args: ["yes", hunks, new Set(), undefined], want: { answer: "yes" } },
    {
      name: "always with a dropped hunk",
      args: ["always", hunks, new Set([1]), undefined],
      want: { answer: "always", hunks: [2] },
    },
    {
      name: "every hunk dropped",
      args: ["yes", hunks, new Set([1, 2]), undefined],
      want: { answer: "yes", hunks: [] },
    },
    {
      name: "edited text wins over hunks",
      args: ["yes", hunks, new Set([1]), "mine\n"],
      want: { answer: "yes", content: "mine\n" },
    },
    {
      name: "edited to empty is still an edit",
      args: ["yes", hunks, new Set(), ""],
      want: { answer: "yes", content: "" },
    },
    { name: "skip carries nothing", args: ["skip", hunks, new Set([1]), "mine\n"], want: { answer: "skip" } },
    { name: "no carries nothing", args: ["no", hunks, new Set([1]), undefined], want: { answer: "no" } },
    {
      name: "unknown ids dropped do not count",
      args: ["yes", hunks, new Set([7]), undefined],
      want: { answer: "yes" },
    },
  ];
  for (const c of cases) {
    assert.deepEqual(editAnswer(...c.args), c.want, c.name);
  }
});
