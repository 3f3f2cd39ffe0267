// Measures what activation costs: loading the production bundle and running
// activate() against the fake vscode module (the daemon start is left to
// run in the background, as in VS Code). Prints figures; asserts nothing.
//   npm run build -- --production && node extension/test/bench-activate.mjs
import { createRequire } from "node:module";
import Module from "node:module";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), "tether-bench-"));
const fakePath = path.join(tmp, "vscode.js");
await esbuild.build({
  entryPoints: [path.join(here, "fake", "vscode.ts")],
  outfile: fakePath,
  bundle: true,
  format: "cjs",
  platform: "node",
  logLevel: "warning",
});

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "vscode" ? fakePath : resolve.call(this, request, ...rest);
};
const require = createRequire(import.meta.url);
const { fake } = require(fakePath);
fake.config["tether.path"] = path.join(tmp, "no-daemon-here"); // the start fails fast, off the measured path

const bundle = path.resolve("dist/extension.js");
let t = performance.now();
const ext = require(bundle);
const loadMs = performance.now() - t;

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const context = { extensionPath: tmp, subscriptions: [], extension: { packageJSON: pkg } };
t = performance.now();
ext.activate(context);
const activateMs = performance.now() - t;

console.log(`bundle load: ${loadMs.toFixed(1)} ms`);
console.log(
  `activate(): ${activateMs.toFixed(1)} ms (${fake.tools.size} tools, ${fake.commands.size} commands registered)`,
);
await ext.deactivate();
for (const d of context.subscriptions) d.dispose?.();
rmSync(tmp, { recursive: true, force: true });
