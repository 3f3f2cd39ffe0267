// Bundles the extension into dist/extension.js: one file, vscode external.
//   node extension/esbuild.mjs [--production] [--watch]
import { rmSync } from "node:fs";
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const options = {
  entryPoints: ["extension/src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["vscode"],
  minify: production,
  sourcemap: production ? false : "linked",
  metafile: true,
  logLevel: "info",
};

if (process.argv.includes("--watch")) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  rmSync("dist", { recursive: true, force: true }); // no stale source map beside a production bundle
  const result = await esbuild.build(options);
  const bytes = result.metafile.outputs["dist/extension.js"].bytes;
  console.log(`dist/extension.js: ${(bytes / 1024).toFixed(1)} KiB${production ? " (minified)" : ""}`);
}
