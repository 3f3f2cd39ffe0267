// Builds the tests with esbuild (the `vscode` module replaced by the fake
// in test/fake) and runs them with node's own test runner.
//   node extension/test/run.mjs [--unit | --integration]
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const outdir = path.resolve("out/test");
const only = process.argv.includes("--unit") ? "unit" : process.argv.includes("--integration") ? "integration" : "all";

const entries = [];
if (only !== "integration") {
  entries.push(...testsIn(here));
}
if (only !== "unit") {
  entries.push(...testsIn(path.join(here, "integration")));
}

rmSync(outdir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: entries,
  outdir,
  outbase: here,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  sourcemap: "inline",
  alias: { vscode: path.join(here, "fake", "vscode.ts") },
  logLevel: "warning",
});

const built = entries.map((e) => path.join(outdir, path.relative(here, e)).replace(/\.ts$/, ".js"));
const res = spawnSync(process.execPath, ["--enable-source-maps", "--test", "--test-reporter=spec", ...built], {
  stdio: "inherit",
});
process.exit(res.status ?? 1);

function testsIn(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".test.ts"))
    .sort()
    .map((f) => path.join(dir, f));
}
