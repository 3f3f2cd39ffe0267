#!/usr/bin/env node
// Tether end to end, in a real VS Code: code-server in headless Chromium.
//
//   node e2e/run.mjs [scenario ...]   (after e2e/setup.sh; `npm run e2e` does both)
//
// Every module in e2e/scenarios/ is a scenario (see e2e/README.md for the
// interface). Scenarios share one code-server, workbench and workspace
// unless they ask for a fresh profile; each fresh one gets its own. Naming
// scenarios runs only those.
//
// Exit status: 0 every check passed, 1 a check failed, 2 the harness itself
// failed (rig missing, build or start-up broken). Screenshots, logs and
// result.json go to e2e/artifacts/.
// Env: TETHER_E2E_CACHE (where setup.sh installed the rig), TETHER_E2E_RUN
// (the run folder), E2E_KEEP=1 leaves code-server running at the end.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { Context, StepFailed } from './lib/context.mjs';
import { Report, waitFor } from './lib/report.mjs';
import { CodeServer, buildExtensions, clearRun, e2eDir, freePort, freshRun, groupMembers, installExtensions, missingRig, rigPaths, serverEnv } from './lib/rig.mjs';
import { Workbench, launchBrowser } from './lib/workbench.mjs';

const artifacts = path.join(e2eDir, 'artifacts');
const report = new Report();
const rig = rigPaths();
const running = new Set(); // { codeServer, browser } of each group still up

/** Loads every scenario module, in their order, keeping only those named on the command line. */
async function loadScenarios(names) {
  const dir = path.join(e2eDir, 'scenarios');
  const all = [];
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort()) {
    const mod = await import(pathToFileURL(path.join(dir, f)).href);
    const s = mod.default;
    if (!s || typeof s.run !== 'function' || !s.name) {
      throw new Error(`${f}: a scenario module's default export needs a name and a run(t) function`);
    }
    all.push({ order: 100, fresh: false, files: {}, userFiles: {}, settings: {}, agent: {}, ...s, file: f });
  }
  const unknown = names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length > 0) {
    throw new Error(`no scenario named ${unknown.join(', ')}; there are: ${all.map((s) => s.name).join(', ')}`);
  }
  const picked = names.length > 0 ? all.filter((s) => names.includes(s.name)) : all;
  return picked.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

/** Groups scenarios by the code-server they run in: the shared one, then one per fresh scenario. */
function groups(scenarios) {
  const shared = scenarios.filter((s) => !s.fresh);
  const out = shared.length > 0 ? [{ name: 'shared', scenarios: shared }] : [];
  for (const s of scenarios.filter((s) => s.fresh)) {
    out.push({ name: s.name, scenarios: [s] });
  }
  return out;
}

/** The settings of a group's profile: its scenarios' own, which must not disagree. */
function mergedSettings(group) {
  const out = {};
  for (const s of group.scenarios) {
    for (const [k, v] of Object.entries(s.settings)) {
      if (k in out && JSON.stringify(out[k]) !== JSON.stringify(v)) {
        throw new Error(`scenarios of the ${group.name} group disagree on the setting ${k}; mark one fresh`);
      }
      out[k] = v;
    }
  }
  return out;
}

function writeFiles(dir, files) {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
}

/** Copies the logs worth reading after a run of one group. */
function collectLogs(group, dirs) {
  const out = path.join(artifacts, 'logs', group.name);
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

async function stop(up, group) {
  running.delete(up);
  if (up.browser) {
    await up.browser.close().catch(() => undefined);
  }
  if (!up.codeServer) {
    return;
  }
  if (process.env.E2E_KEEP === '1') {
    console.log(`code-server of ${group} left running at http://127.0.0.1:${up.codeServer.port}/ — stop it with: kill -TERM -- -${up.codeServer.pgid}`);
    up.codeServer.proc.unref();
    return;
  }
  const how = await up.codeServer.stop();
  const left = groupMembers(up.codeServer.pgid);
  report.check(`${group}: code-server, its extension host and the Tether daemon all ended`, left.length === 0, left.length ? left : how);
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    console.error(`\n${sig}: stopping code-server`);
    void Promise.all([...running].map((up) => stop(up, 'interrupted'))).finally(() => process.exit(2));
  });
}

/** Starts one code-server for a group, runs its scenarios in order, stops it. */
async function runGroup(group, vsix) {
  const dirs = freshRun(rig, group.name, mergedSettings(group));
  for (const s of group.scenarios) {
    writeFiles(dirs.workspace, s.files);
    writeFiles(path.join(dirs.userData, 'User'), s.userFiles);
  }
  const scriptFile = path.join(dirs.root, 'script.json');
  const eventsFile = path.join(dirs.root, 'events.jsonl');
  const byMarker = Object.assign({}, ...group.scenarios.map((s) => s.agent));
  fs.writeFileSync(scriptFile, JSON.stringify({ byMarker }, null, 2));
  const env = serverEnv(rig, dirs, { TETHER_E2E_SCRIPT: scriptFile, TETHER_E2E_EVENTS: eventsFile });

  const tInstall = Date.now();
  report.check(`${group.name}: installed ${[vsix.tether, vsix.agent].map((v) => path.basename(v)).join(' and ')}`, true, installExtensions(rig, dirs, env, [vsix.tether, vsix.agent]));
  report.mark(`${group.name}.installMs`, tInstall);

  const up = { pageErrors: [], blocked: [] };
  running.add(up);
  try {
    const tStart = Date.now();
    up.codeServer = new CodeServer(rig, dirs, env, await freePort());
    await up.codeServer.listening(60000);
    up.browser = await launchBrowser(rig, dirs.browser, up.blocked);
    const page = up.browser.pages()[0] || (await up.browser.newPage());
    page.on('pageerror', (e) => up.pageErrors.push(String(e).slice(0, 300)));
    const wb = new Workbench(page);
    await page.goto(up.codeServer.url, { waitUntil: 'domcontentloaded', timeout: 120000 });
    await wb.ready(60000);
    report.mark(`${group.name}.workbenchReadyMs`, tStart);
    const readEvents = () => new Context({ eventsFile }).events();
    await waitFor(() => readEvents().some((e) => e.kind === 'activated'), 90000, 'the test agent extension to activate');
    await wb.openChat();
    report.mark(`${group.name}.readyForScenariosMs`, tStart);

    // Warm-ups start slow things (a language server) before any scenario runs.
    const contexts = new Map(group.scenarios.map((s) => [s, new Context({ report, wb, dirs, artifacts, name: s.name, eventsFile, server: up.codeServer, rig })]));
    for (const s of group.scenarios.filter((s) => typeof s.warmup === 'function')) {
      await s.warmup(contexts.get(s)).catch((e) => report.note(`${s.name}: warm-up failed: ${String((e && e.message) || e).split('\n')[0]}`));
    }
    for (const s of group.scenarios) {
      const t = contexts.get(s);
      t.started = Date.now();
      const t0 = Date.now();
      try {
        await s.run(t);
      } catch (e) {
        if (!(e instanceof StepFailed)) {
          report.check(`${s.name}: ran to the end`, false, String((e && e.stack) || e).split('\n').slice(0, 3).join(' | '));
        }
        await t.shot('failure').catch(() => undefined);
        // Leave the workbench usable for the next scenario.
        await page.keyboard.press('Escape').catch(() => undefined);
      }
      report.mark(`${s.name}Ms`, t0);
    }
    report.check(`${group.name}: no uncaught errors in the page`, up.pageErrors.length === 0, up.pageErrors.length ? up.pageErrors.slice(0, 3) : undefined);
    report.check(`${group.name}: the browser asked for nothing beyond loopback`, up.blocked.length === 0, up.blocked.length ? up.blocked.slice(0, 5) : undefined);
  } finally {
    await stop(up, group.name);
    collectLogs(group, dirs);
  }
}

async function main() {
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const missing = missingRig(rig);
  if (missing) {
    throw new Error(missing);
  }
  const scenarios = await loadScenarios(process.argv.slice(2));
  clearRun(rig);
  const tBuild = Date.now();
  const vsix = buildExtensions(rig, rig.run);
  report.mark('buildMs', tBuild);
  for (const g of groups(scenarios)) {
    await runGroup(g, vsix);
  }
}

let harnessError;
try {
  await main();
} catch (e) {
  harnessError = e;
  console.error('HARNESS ERROR:', (e && e.stack) || e);
  await Promise.all([...running].map((up) => stop(up, 'after the harness error').catch(() => undefined)));
}
const summary = report.print(harnessError);
fs.mkdirSync(artifacts, { recursive: true });
fs.writeFileSync(path.join(artifacts, 'result.json'), JSON.stringify(summary, null, 2) + '\n');
process.exit(summary.exitCode);
