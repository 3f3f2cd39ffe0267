import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { bundledDaemon, daemonPath, ensureExecutable, findRipgrep, platformDir, ripgrepCandidates } from "../src/paths";

test("the bundled daemon lives in bin/<platform>-<arch>", () => {
  assert.equal(bundledDaemon("/ext", "linux", "x64"), path.join("/ext", "bin", "linux-x64", "tether"));
  assert.equal(bundledDaemon("/ext", "win32", "x64"), path.join("/ext", "bin", "win32-x64", "tether.exe"));
  assert.equal(platformDir("darwin", "arm64"), "darwin-arm64");
});

test("tether.path overrides the bundled daemon", () => {
  const cases: [string, string | undefined, string][] = [
    ["", "/ws", bundledDaemon("/ext")],
    ["/opt/tether", "/ws", "/opt/tether"],
    ["~/bin/tether", "/ws", path.join(os.homedir(), "bin/tether")],
    ["build/tether", "/ws", path.join("/ws", "build/tether")],
    ["build/tether", undefined, "build/tether"],
  ];
  for (const [configured, root, want] of cases) {
    assert.equal(daemonPath(configured, "/ext", root), want, configured);
  }
});

test("VS Code's ripgrep is found in each layout, in order", () => {
  const all = ripgrepCandidates("/app", "linux", "x64");
  assert.deepEqual(all, [
    "/app/node_modules/@vscode/ripgrep/bin/rg",
    "/app/node_modules.asar.unpacked/@vscode/ripgrep/bin/rg",
    "/app/node_modules/@vscode/ripgrep-universal/bin/linux-x64/rg",
    "/app/node_modules.asar.unpacked/@vscode/ripgrep-universal/bin/linux-x64/rg",
  ]);
  for (const only of all) {
    assert.equal(
      findRipgrep("/app", (p) => p === only, "linux", "x64"),
      only,
    );
  }
  assert.equal(
    findRipgrep("/app", (p) => p === all[1] || p === all[2], "linux", "x64"),
    all[1],
    "the first existing wins",
  );
  assert.equal(
    findRipgrep("/app", () => false, "linux", "x64"),
    undefined,
  );
  assert.equal(
    findRipgrep(undefined, () => true),
    undefined,
  );
  assert.ok(ripgrepCandidates("C:/app", "win32", "x64").every((p) => p.endsWith("rg.exe")));
});

test("a bundled daemon that lost its mode bits is made executable", { skip: process.platform === "win32" }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tether-paths-"));
  try {
    const bin = path.join(dir, "tether");
    writeFileSync(bin, "#!/bin/sh\n", { mode: 0o644 });
    assert.equal(ensureExecutable(bin), true);
    assert.equal(statSync(bin).mode & 0o111, 0o111);
    assert.equal(ensureExecutable(path.join(dir, "missing")), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
