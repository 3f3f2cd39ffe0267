// Builds one .vsix per platform, as rust-analyzer ships: each holds the
// bundle and the one daemon its platform runs, and the marketplace gives
// every user the one for their machine.
//   node extension/scripts/package.mjs [--only linux-x64,darwin-arm64] [--out DIR]
// Writes DIR/tether-<target>.vsix (DIR defaults to the repository root).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { buildDaemons, targets } from "./daemons.mjs";

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const only = arg("--only")?.split(",") ?? Object.keys(targets);
const outDir = path.resolve(arg("--out") ?? ".");
for (const t of only) {
  if (!targets[t]) {
    console.error(`unknown target ${t}; known: ${Object.keys(targets).join(", ")}`);
    process.exit(2);
  }
}

const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: "inherit", ...opts });
const vsce = path.resolve("node_modules/.bin/vsce");

// The Marketplace page is the user's guide, docs/vscode.md, not the
// repository's README: its relative links and images point into docs/ on
// the repository's site.
const readme = "docs/vscode.md";
const repo = JSON.parse(readFileSync("package.json", "utf8")).repository.url.replace(/\.git$/, "");
const pageArgs = [
  "--readme-path",
  readme,
  "--baseContentUrl",
  `${repo}/blob/HEAD/docs`,
  "--baseImagesUrl",
  `${repo}/raw/HEAD/docs`,
];

run(process.execPath, ["extension/esbuild.mjs", "--production"]);
buildDaemons(only);

// .vscodeignore lets every bin/<target>/ in; each package gets an ignore
// file of its own that lets in only its target's daemon.
const ignore = readFileSync(".vscodeignore", "utf8")
  .split("\n")
  .filter((l) => !/^!bin\//.test(l.trim()))
  .join("\n");
mkdirSync(outDir, { recursive: true });
const tmp = mkdtempSync(path.join(os.tmpdir(), "tether-package-"));
try {
  for (const t of only) {
    const ignoreFile = path.join(tmp, `${t}.vscodeignore`);
    writeFileSync(ignoreFile, `${ignore.trimEnd()}\n!bin/${t}/tether\n!bin/${t}/tether.exe\n`);
    const out = path.join(outDir, `tether-${t}.vsix`);
    run(vsce, [
      "package",
      "--no-dependencies",
      "--skip-license",
      "--target",
      t,
      "--ignoreFile",
      ignoreFile,
      "--out",
      out,
      ...pageArgs,
    ]);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
