#!/usr/bin/env node
// Runs one self-contained scenario module from this folder in code-server,
// with the same rig as e2e/run.mjs:
//
//   node e2e/scenarios/run.mjs agent     (after e2e/setup.sh)
//
// A scenario exports files (written into the workspace), userSettings
// (merged into settings.json), script (the scripted model's, see
// testext/), and run(ctx). Exit status as run.mjs's: 0 passed, 1 a check
// failed, 2 the harness failed. Screenshots and logs go to
// e2e/artifacts/<scenario>/.

import fs from 'node:fs';
import path from 'node:path';

import { Report, waitFor } from '../lib/report.mjs';
import { CodeServer, buildExtensions, e2eDir, freePort, freshRun, groupMembers, installExtension, missingRig, rigPaths, serverEnv } from '../lib/rig.mjs';
import { Workbench, launchBrowser } from '../lib/workbench.mjs';

const name = process.argv[2];
if (!name || !/^[\w-]+$/.test(name)) {
  console.error('usage: node e2e/scenarios/run.mjs SCENARIO   (a module in e2e/scenarios/)');
  process.exit(2);
}
const scenario = await import(`./${name}.mjs`);
const artifacts = path.join(e2eDir, 'artifacts', name);
const report = new Report();
const rig = rigPaths();
const blocked = [];
const pageErrors = [];
let codeServer;
let browser;

class StepFailed extends Error {}

async function step(what, fn) {
  try {
    const v = await fn();
    report.check(what, true);
    return v;
  } catch (e) {
    report.check(what, false, String(e && e.message || e).split('\n')[0]);
    throw new StepFailed(what);
  }
}

function readEvents(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

async function shutdown() {
  const closing = browser;
  browser = undefined;
  if (closing) {
    await closing.close().catch(() => undefined);
  }
  const cs = codeServer;
  codeServer = undefined;
  if (!cs) {
    return;
  }
  const how = await cs.stop();
  const left = groupMembers(cs.pgid);
  report.check('code-server, its extension host and the Tether daemon all ended', left.length === 0, left.length ? left : how);
}

function collectLogs(dirs) {
  const out = path.join(artifacts, 'logs');
  fs.mkdirSync(out, { recursive: true });
  for (const f of ['code-server.log', 'events.jsonl']) {
    if (fs.existsSync(path.join(dirs.root, f))) {
      fs.copyFileSync(path.join(dirs.root, f), path.join(out, f));
    }
  }
  const logs = path.join(dirs.userData, 'logs');
  if (fs.existsSync(logs)) {
    fs.cpSync(logs, path.join(out, 'vscode'), { recursive: true });
  }
}

async function main() {
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const missing = missingRig(rig);
  if (missing) {
    throw new Error(missing);
  }
  const dirs = freshRun(rig);
  try {
    const vsix = buildExtensions(dirs.root);
    const settingsFile = path.join(dirs.userData, 'User/settings.json');
    const settings = { ...JSON.parse(fs.readFileSync(settingsFile, 'utf8')), ...(scenario.userSettings ?? {}) };
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2) + '\n');
    for (const [rel, text] of Object.entries(scenario.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(dirs.workspace, rel)), { recursive: true });
      fs.writeFileSync(path.join(dirs.workspace, rel), text);
    }
    const scriptFile = path.join(dirs.root, 'script.json');
    const eventsFile = path.join(dirs.root, 'events.jsonl');
    fs.writeFileSync(scriptFile, JSON.stringify(scenario.script, null, 2));
    const env = serverEnv(rig, dirs, { TETHER_E2E_SCRIPT: scriptFile, TETHER_E2E_EVENTS: eventsFile });
    for (const v of [vsix.tether, vsix.agent]) {
      report.check(`installed ${path.basename(v)}`, true, installExtension(rig, dirs, env, v));
    }
    codeServer = new CodeServer(rig, dirs, env, await freePort());
    await codeServer.listening(60000);
    browser = await launchBrowser(rig, dirs.browser, blocked);
    const page = browser.pages()[0] || (await browser.newPage());
    page.on('pageerror', (e) => pageErrors.push(String(e).slice(0, 300)));
    const wb = new Workbench(page);
    await page.goto(codeServer.url, { timeout: 120000 });
    await wb.ready(60000);
    const ctx = {
      wb,
      page,
      step,
      waitFor,
      check: (what, ok, detail) => report.check(what, ok, detail),
      note: (text) => report.note(text),
      shot: (file) => wb.screenshot(path.join(artifacts, file)),
      events: () => readEvents(eventsFile),
      workspace: dirs.workspace,
    };
    const t0 = Date.now();
    try {
      await scenario.run(ctx);
    } catch (e) {
      if (!(e instanceof StepFailed)) {
        throw e;
      }
      await ctx.shot('failure.png').catch(() => undefined);
    }
    report.mark('scenarioMs', t0);
    report.check('no uncaught errors in the page', pageErrors.length === 0, pageErrors.length ? pageErrors.slice(0, 3) : undefined);
    report.check('the browser asked for nothing beyond loopback', blocked.length === 0, blocked.length ? blocked.slice(0, 5) : undefined);
  } finally {
    await shutdown();
    collectLogs(dirs);
  }
}

let harnessError;
try {
  await main();
} catch (e) {
  harnessError = e;
  console.error('HARNESS ERROR:', e && e.stack || e);
  await shutdown().catch(() => undefined);
}
const summary = report.print(harnessError);
fs.mkdirSync(artifacts, { recursive: true });
fs.writeFileSync(path.join(artifacts, 'result.json'), JSON.stringify(summary, null, 2) + '\n');
process.exit(summary.exitCode);
