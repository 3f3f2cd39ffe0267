// package.json and the code agree: every command the code registers is
// contributed and the other way round, menus name real commands, tools are
// generated (tether_ names), and activation stays lazy.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { Approvals } from "../src/approval";
import { registerCommands } from "../src/commands";
import { ApprovalToolName } from "../src/confirm";
import { InfoDocuments } from "../src/infoDocuments";
import { fake } from "./fake/vscode";
import { StubDaemon, logChannel } from "./stubDaemon";

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

const pkg = JSON.parse(readFileSync(path.join(repoRoot(), "package.json"), "utf8"));

test("contributed commands are exactly the registered ones", () => {
  fake.reset();
  const daemon = new StubDaemon();
  registerCommands(
    daemon.asDaemon(),
    new Approvals(daemon.asDaemon(), logChannel()),
    new InfoDocuments(),
    logChannel(),
  );
  const registered = [...fake.commands.keys()].sort();
  const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual(registered, contributed);
  for (const id of [
    "tether.undo",
    "tether.showCheckpoints",
    "tether.approve",
    "tether.reject",
    "tether.reviewPermissions",
    "tether.resetPermissions",
    "tether.restart",
    "tether.showLog",
  ]) {
    assert.ok(contributed.includes(id), `${id} is a contract`);
  }
});

test("menus only name contributed commands", () => {
  const ids = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
  for (const [menu, entries] of Object.entries<{ command: string }[]>(pkg.contributes.menus)) {
    for (const e of entries) {
      assert.ok(ids.has(e.command), `${menu} names ${e.command}`);
    }
  }
});

test("approve and reject sit in the editor title only while a review is open", () => {
  const title = pkg.contributes.menus["editor/title"];
  for (const id of ["tether.approve", "tether.reject", "tether.approveAlways", "tether.skip"]) {
    const e = title.find((x: { command: string }) => x.command === id);
    assert.ok(e, id);
    assert.match(e.when, /tether\.reviewing/);
    assert.match(e.when, /resourceScheme == tether-proposed/);
  }
});

test("activation is lazy", () => {
  for (const ev of pkg.activationEvents ?? []) {
    assert.ok(ev !== "*" && ev !== "onStartupFinished", `activation event ${ev} would slow start-up`);
  }
  const plan = pkg.contributes.views.explorer.find((v: { id: string }) => v.id === "tether.plan");
  assert.equal(plan.when, "tether.hasPlan", "a visible view would activate the extension at start-up");
});

test("every tool is a generated tether_ tool", () => {
  const tools = pkg.contributes.languageModelTools.filter((t: { name: string }) => t.name !== ApprovalToolName);
  assert.ok(tools.length > 0);
  for (const t of tools) {
    assert.equal(t.name, `tether_${t.toolReferenceName}`);
    assert.equal(t.canBeReferencedInPrompt, true);
    assert.ok(t.modelDescription && t.userDescription && t.inputSchema && t.icon);
    assert.ok(t.tags.includes("tether"));
  }
});

test("the approval tool is hidden from models, and VS Code may never approve it by itself", () => {
  const t = pkg.contributes.languageModelTools.find((x: { name: string }) => x.name === ApprovalToolName);
  assert.ok(t, "contributed");
  assert.equal(t.when, "false", "never offered to a model or shown in the tool picker");
  assert.equal(t.canBeReferencedInPrompt, false);
  assert.ok(!t.tags.includes("tether"), "agents that pick Tether's tools by tag do not pick it");
  // VS Code keys the setting by the extension's id and the tool's reference name.
  const key = `${pkg.publisher}.${pkg.name}/${t.toolReferenceName}`;
  assert.deepEqual(pkg.contributes.configurationDefaults["chat.tools.eligibleForAutoApproval"], { [key]: false });
});

test("the daemon's settings that matter to users are settings, each with a description", () => {
  const props = pkg.contributes.configuration.properties;
  const settle = props["tether.diagnostics.settleMs"];
  assert.equal(settle.type, "integer");
  assert.equal(settle.default, 3000);
  assert.equal(settle.minimum, 0);
  assert.equal(
    props["tether.path"].scope,
    "application",
    "a user setting: shown in the User tab, and no workspace picks the program Tether runs",
  );
  for (const [k, v] of Object.entries<{ markdownDescription?: string; description?: string }>(props)) {
    assert.ok((v.markdownDescription ?? v.description ?? "").length > 20, `${k} has a description`);
  }
});

test("settings cover mode, undo retention, shell timeout, path and log level", () => {
  const props = pkg.contributes.configuration.properties;
  assert.deepEqual(props["tether.permissionMode"].enum, ["default", "acceptEdits", "plan", "bypass", "dryRun"]);
  assert.equal(props["tether.undo.keep"].default, 20);
  assert.equal(props["tether.shell.defaultTimeout"].default, 120);
  assert.equal(props["tether.path"].type, "string");
  assert.deepEqual(props["tether.logLevel"].enum, ["debug", "info", "warn", "error"]);
});

test("engines and types stay within what code-server 4.139 (VS Code 1.139) accepts", () => {
  assert.equal(pkg.engines.vscode, "^1.138.0");
  assert.equal(pkg.devDependencies["@types/vscode"], "1.138.0");
});

test("diff editors show CodeLens, so each hunk's Keep / Drop is visible", () => {
  // VS Code hides CodeLens in diff editors unless diffEditor.codeLens is on.
  assert.equal(pkg.contributes.configurationDefaults["diffEditor.codeLens"], true);
});

test("the extension names no method of the protocol by a string: it sends and serves them through their declarations", () => {
  const src = path.join(repoRoot(), "extension", "src");
  const protocolTs = readFileSync(path.join(src, "protocol.ts"), "utf8");
  const methods = new Set([...protocolTs.matchAll(/^export const Method\w+ = "([^"]+)";$/gm)].map((m) => m[1]));
  assert.ok(
    methods.has("tools/call") && methods.has("requests/turn") && methods.size > 25,
    `methods read from protocol.ts: ${[...methods].join(", ")}`,
  );
  const declared = [...protocolTs.matchAll(/^export const (\w+) = new (Request|Notification)Type0?[<(]/gm)].length;
  assert.equal(declared, methods.size, "every method has its RequestType or NotificationType");
  for (const file of readdirSync(src).filter((f) => f.endsWith(".ts") && f !== "protocol.ts")) {
    for (const [literal, name] of readFileSync(path.join(src, file), "utf8").matchAll(/["'`](\$?[\w]*\/\w+)["'`]/g)) {
      assert.ok(!methods.has(name) && !name.startsWith("$/"), `${file} names the method ${literal} by hand`);
    }
  }
});
