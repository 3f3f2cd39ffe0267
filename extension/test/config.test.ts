import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, test } from "node:test";

import { daemonSettings, readConfig } from "../src/config";
import { fake } from "./fake/vscode";

afterEach(() => {
  fake.config = {};
});

test("the web settings go to initialize under the daemon's names", () => {
  fake.config["tether.web.allowedHosts"] = ["pkg.go.dev", "*.example.com"];
  fake.config["tether.web.allowedPrivateHosts"] = ["localhost", "127.0.0.1/32"];
  fake.config["tether.web.timeout"] = 45;
  const s = daemonSettings(readConfig(), undefined);
  assert.deepEqual(s.webAllowedHosts, ["pkg.go.dev", "*.example.com"]);
  assert.deepEqual(s.webPrivateHosts, ["localhost", "127.0.0.1/32"]);
  assert.equal(s.webTimeout, 45);
});

test("empty host lists are left out, so the daemon's defaults apply", () => {
  const s = daemonSettings(readConfig(), undefined);
  assert.equal("webAllowedHosts" in s, false);
  assert.equal("webPrivateHosts" in s, false);
  assert.equal(s.webTimeout, 30);
});

/** The folder with go.mod and the manifest, above the built test. */
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, "go.mod"))) {
    const up = path.dirname(dir);
    assert.notEqual(up, dir, "no go.mod above the tests");
    dir = up;
  }
  return dir;
}

// docs/vscode.md lists which daemon setting each tether.* setting becomes
// ("- `tether.undo.keep` → `undoKeep`"); the list must be what the code does.
test("docs/vscode.md maps each setting as daemonSettings does", () => {
  const root = repoRoot();
  const doc = readFileSync(path.join(root, "docs", "vscode.md"), "utf8");
  const props: Record<string, { type: string; enum?: string[]; default?: unknown }> = JSON.parse(
    readFileSync(path.join(root, "package.json"), "utf8"),
  ).contributes.configuration.properties;
  const mapped = [...doc.matchAll(/^- `(tether\.[\w.]+)` → `(\w+)`/gm)].map((m) => ({ vscode: m[1], daemon: m[2] }));
  assert.ok(mapped.length >= 10, `the doc maps ${mapped.length} settings`);
  for (const { vscode, daemon } of mapped) {
    const p = props[vscode];
    assert.ok(p, `${vscode} is not a contributed setting`);
    const value = p.enum
      ? p.enum.find((v) => v !== p.default)
      : p.type === "array"
        ? ["docs.example.com"]
        : p.type === "number" || p.type === "integer"
          ? 77
          : "debug";
    fake.config[vscode] = value;
    const s = daemonSettings(readConfig(), undefined) as Record<string, unknown>;
    assert.deepEqual(s[daemon], value, `${vscode} does not reach the daemon as ${daemon}`);
    fake.config = Object.fromEntries(Object.entries(fake.config).filter(([k]) => k !== vscode));
  }
  for (const name of Object.keys(props)) {
    assert.ok(doc.includes("`" + name + "`"), `docs/vscode.md does not mention ${name}`);
  }
  const sent = Object.keys(daemonSettings(readConfig(), "/rg")).filter((k) => k !== "rgPath");
  for (const k of sent) {
    assert.ok(
      mapped.some((m) => m.daemon === k),
      `daemonSettings sends ${k}, which docs/vscode.md does not map`,
    );
  }
});

test("write roots go to initialize as writeRoots, and only when set", () => {
  assert.equal("writeRoots" in daemonSettings(readConfig(), undefined), false);
  fake.config["tether.writeRoots"] = ["/home/me/sibling"];
  assert.deepEqual(daemonSettings(readConfig(), undefined).writeRoots, ["/home/me/sibling"]);
});

test("the sandbox settings go to initialize under the daemon's names; auto and none are left out", () => {
  let s = daemonSettings(readConfig(), undefined);
  assert.equal("shellSandbox" in s, false);
  assert.equal("shellWritablePaths" in s, false);
  fake.config["tether.shell.sandbox"] = "landlock";
  fake.config["tether.shell.writablePaths"] = ["/srv/cache"];
  s = daemonSettings(readConfig(), undefined);
  assert.equal(s.shellSandbox, "landlock");
  assert.deepEqual(s.shellWritablePaths, ["/srv/cache"]);
});
