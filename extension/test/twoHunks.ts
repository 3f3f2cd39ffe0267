import type { Hunk } from "../src/protocol";

// Twenty lines with lines 2 and 15 changed: two hunks, exactly as the
// daemon's diff.Hunks makes them (three lines of context; wire lines carry
// no terminator). Shared by the tests of hunks, of a file's review and of
// a change set's.
export const original = Array.from({ length: 20 }, (_, i) => `l${i + 1}\n`).join("");
export const proposed = original.replace("l2\n", "L2\n").replace("l15\n", "L15\n");
export const hunks: Hunk[] = [
  { id: 1, oldStart: 1, oldLines: 5, newStart: 1, newLines: 5, lines: [" l1", "-l2", "+L2", " l3", " l4", " l5"] },
  {
    id: 2,
    oldStart: 12,
    oldLines: 7,
    newStart: 12,
    newLines: 7,
    lines: [" l12", " l13", " l14", "-l15", "+L15", " l16", " l17", " l18"],
  },
];
