// Cross-compiles the daemon for the platforms the extension ships for,
// into bin/<platform>-<arch>/tether[.exe], the folder daemon.ts looks in.
//   node extension/scripts/daemons.mjs [--only linux-x64,darwin-arm64]
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// VS Code's process.platform-process.arch (also vsce's --target) → Go's GOOS/GOARCH.
export const targets = {
  "linux-x64": ["linux", "amd64"],
  "linux-arm64": ["linux", "arm64"],
  "darwin-arm64": ["darwin", "arm64"],
  "darwin-x64": ["darwin", "amd64"],
  "win32-x64": ["windows", "amd64"],
};

/** Builds the daemon for each target named. */
export function buildDaemons(only = Object.keys(targets)) {
  for (const t of only) {
    if (!targets[t]) {
      throw new Error(`unknown target ${t}; known: ${Object.keys(targets).join(", ")}`);
    }
  }
  const version = JSON.parse(readFileSync("package.json", "utf8")).version;
  for (const t of only) {
    // Only this target's folder: bin/tether (scripts/build.sh) is not ours.
    rmSync(path.join("bin", t), { recursive: true, force: true });
    const [goos, goarch] = targets[t];
    const out = path.join("bin", t, goos === "windows" ? "tether.exe" : "tether");
    const started = Date.now();
    execFileSync(
      "go",
      ["build", "-trimpath", "-ldflags", `-s -w -X main.version=${version}`, "-o", out, "./cmd/tether"],
      {
        stdio: "inherit",
        env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: "0" },
      },
    );
    console.log(`${out} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
}

// Run as a script it builds; imported, it only lends its target list.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--only");
  try {
    buildDaemons(i >= 0 ? process.argv[i + 1].split(",") : undefined);
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
}
