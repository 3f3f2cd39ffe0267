// Cross-compiles the daemon for every platform the .vsix supports, into
// bin/<platform>-<arch>/tether[.exe], the folder daemon.ts looks in.
//   node extension/scripts/daemons.mjs [--only linux-x64,darwin-arm64]
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";

// VS Code's process.platform-process.arch → Go's GOOS/GOARCH.
const targets = {
  "linux-x64": ["linux", "amd64"],
  "linux-arm64": ["linux", "arm64"],
  "darwin-arm64": ["darwin", "arm64"],
  "darwin-x64": ["darwin", "amd64"],
  "win32-x64": ["windows", "amd64"],
};

const onlyArg = process.argv.indexOf("--only");
const only = onlyArg >= 0 ? process.argv[onlyArg + 1].split(",") : Object.keys(targets);
for (const t of only) {
  if (!targets[t]) {
    console.error(`unknown target ${t}; known: ${Object.keys(targets).join(", ")}`);
    process.exit(2);
  }
}

const version = JSON.parse(readFileSync("package.json", "utf8")).version;
for (const t of only) {
  // Only this target's folder: bin/tether (scripts/build.sh) is not ours.
  rmSync(path.join("bin", t), { recursive: true, force: true });
  const [goos, goarch] = targets[t];
  const out = path.join("bin", t, goos === "windows" ? "tether.exe" : "tether");
  const started = Date.now();
  execFileSync("go", ["build", "-trimpath", "-ldflags", `-s -w -X main.version=${version}`, "-o", out, "./cmd/tether"], {
    stdio: "inherit",
    env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: "0" },
  });
  console.log(`${out} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
