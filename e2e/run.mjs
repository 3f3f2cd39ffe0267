#!/usr/bin/env node
// Tether end to end, in a real VS Code: code-server in headless Chromium.
//
//   node e2e/run.mjs        (after e2e/setup.sh; `npm run e2e` does both)
//
// A chat request to the test agent (@tethertest) reads greet.txt and edits it
// in three places through Tether's tools; the review diff opens; one hunk is
// dropped with its CodeLens and Approve is clicked in the editor title; the
// file must then hold only the kept hunks. "Tether: Undo Last Request" from
// the command palette must then put the file back byte for byte.
//
// Exit status: 0 every check passed, 1 a check failed, 2 the harness itself
// failed (rig missing, build or start-up broken). Screenshots, logs and
// result.json go to e2e/artifacts/.
// Env: TETHER_E2E_CACHE (where setup.sh installed the rig), E2E_KEEP=1 leaves
// code-server running at the end and prints how to stop it.

import fs from 'node:fs';
import path from 'node:path';

import { Report, waitFor } from './lib/report.mjs';
import { CodeServer, buildExtensions, e2eDir, freePort, freshRun, groupMembers, installExtension, missingRig, rigPaths, serverEnv } from './lib/rig.mjs';
import { Workbench, launchBrowser } from './lib/workbench.mjs';
import * as scenario from './scenario.mjs';

const artifacts = path.join(e2eDir, 'artifacts');
const report = new Report();
const rig = rigPaths();
const blocked = [];
const pageErrors = [];
let codeServer;
let browser;

/** A scenario step failed: later steps cannot run, the run ends with status 1. */
class StepFailed extends Error {}

/** Runs one step of the scenario; its failure is a failed check, not a harness error. */
async function step(name, fn) {
  try {
    const v = await fn();
    report.check(name, true);
    return v;
  } catch (e) {
    report.check(name, false, String(e && e.message || e).split('\n')[0]);
    throw new StepFailed(name);
  }
}

function gate(name, ok, detail) {
  if (!report.check(name, ok, detail)) {
    throw new StepFailed(name);
  }
}

const shot = (wb, name) => wb.screenshot(path.join(artifacts, name));

function readEvents(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

function prepareArtifacts() {
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
}

/** Copies the logs worth reading after a run: code-server's, the extension hosts' (Tether's output channel among them), the agent's events. */
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
  if (process.env.E2E_KEEP === '1') {
    console.log(`code-server left running at http://127.0.0.1:${cs.port}/ — stop it with: kill -TERM -- -${cs.pgid}`);
    cs.proc.unref();
    return;
  }
  const how = await cs.stop();
  const left = groupMembers(cs.pgid);
  report.check('code-server, its extension host and the Tether daemon all ended', left.length === 0, left.length ? left : how);
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    console.error(`\n${sig}: stopping code-server`);
    void shutdown().finally(() => process.exit(2));
  });
}

async function scenarioSteps(wb, dirs, eventsFile) {
  const file = path.join(dirs.workspace, scenario.fileName);
  const onDisk = () => fs.readFileSync(file, 'utf8');
  const events = () => readEvents(eventsFile);
  const t0 = Date.now();

  await step('the test agent extension activated', () => waitFor(() => events().some((e) => e.kind === 'activated'), 60000, 'the agent extension to activate'));
  await step('chat panel opens', () => wb.openChat());
  await wb.sendChat(scenario.prompt);
  await shot(wb, '01-chat-request.png');
  report.mark('chatRequestSentAt');

  // Tether does its own asking, with the diff: VS Code must not ask first
  // (prepareInvocation returns no confirmationMessages). Should it ask, the
  // check fails and Allow is clicked so the rest of the run still says something.
  const allow = wb.page.locator('.interactive-session .monaco-button:visible', { hasText: /^Allow/ }).first();
  let vscodeAsked = 0;
  const dropLens = wb.diffLens(`Drop hunk ${scenario.droppedHunk}/${scenario.hunkCount}`);
  await step('Tether\'s review diff opens with a CodeLens on each hunk', () => waitFor(async () => {
    if (await allow.isVisible().catch(() => false)) {
      vscodeAsked++;
      await allow.click();
    }
    return dropLens.isVisible().catch(() => false);
  }, 60000, 'the "Drop hunk" CodeLens in the diff editor'));
  report.mark('reviewShownAt');
  report.check('VS Code ran Tether\'s tools without a confirmation of its own', vscodeAsked === 0, vscodeAsked ? `clicked Allow ${vscodeAsked} time(s)` : undefined);
  report.check('the review diff opened without taking the keyboard from the chat input',
    await wb.page.evaluate(() => Boolean(document.activeElement && document.activeElement.closest('.interactive-input-part'))));
  report.check('the chat shows Tether\'s progress message while the change waits', (await wb.chatText()).includes(`Making ${scenario.hunkCount} edits in ${scenario.fileName}`));

  const read = events().find((e) => e.kind === 'tool-result' && e.tool === 'tether_read_file');
  report.check('tether_read_file ran from the chat request, with its toolInvocationToken', read && /^1\t01: Hello, Ada!/m.test(read.result)
    && events().filter((e) => e.kind === 'tool-call').every((e) => e.hasToken), read ? read.result.split('\n')[0] : 'no result');
  for (let n = 1; n <= scenario.hunkCount; n++) {
    const label = `Drop hunk ${n}/${scenario.hunkCount}`;
    report.check(`lens "${label}" shown`, await wb.diffLens(label).isVisible());
  }
  for (const label of ['Approve', 'Reject', 'Always Approve', 'Skip']) {
    report.check(`editor title shows ${label}`, await wb.titleAction(label).isVisible().catch(() => false));
  }
  report.check('nothing is written while the change waits for review', onDisk() === scenario.original);
  await shot(wb, '02-review-diff.png');

  await dropLens.click();
  await step(`hunk ${scenario.droppedHunk} dropped (its lens now offers Keep)`, () =>
    wb.diffLens(`Keep hunk ${scenario.droppedHunk}/${scenario.hunkCount} (dropped)`).waitFor({ timeout: 15000 }));
  await shot(wb, '03-hunk-dropped.png');

  await wb.titleAction('Approve').click();
  const tApprove = Date.now();
  await step('the chat turn ends after Approve', () => waitFor(() => events().some((e) => e.kind === 'reply' || e.kind === 'error'), 60000, 'the agent\'s reply'));
  report.mark('approveToReplyMs', tApprove);
  const edit = events().find((e) => e.kind === 'tool-result' && e.tool === 'tether_multi_edit');
  const droppedNote = new RegExp(`hunk\\(s\\) ${scenario.droppedHunk} were dropped`);
  const written = onDisk();
  report.check('the file holds the kept hunks and not the dropped one', written === scenario.approved,
    { kept: scenario.keptLines.every((l) => written.includes(l)), droppedAbsent: !written.includes(scenario.droppedLine) });
  report.check('the tool result tells the model which hunk was dropped', edit && droppedNote.test(edit.result), edit && edit.result.split('\n').slice(0, 3).join(' / '));
  report.check('the tool result carries the diff of what was written: the kept hunks only', edit
    && scenario.keptLines.every((l) => edit.result.includes(`\n+${l}\n`)) && !edit.result.includes(`+${scenario.droppedLine}`));
  const chatShows = await waitFor(async () => {
    const t = await wb.chatText();
    return droppedNote.test(t) && t.includes('E2E_AGENT_DONE') ? t : undefined;
  }, 15000, 'the chat to show the result').catch(() => undefined);
  report.check('the chat shows the tool\'s result and the reply', chatShows !== undefined);
  report.check('the review diff closed after Approve', await waitFor(async () => !(await wb.page.locator('.monaco-diff-editor').first().isVisible().catch(() => false)), 10000, 'the diff to close').then(() => true, () => false));
  await shot(wb, '04-chat-result.png');

  const tUndo = Date.now();
  await step('"Tether: Undo Last Request" runs from the command palette', () => wb.palette('Tether: Undo Last Request'));
  const toast = wb.notification('Tether restored');
  const toastText = await step('undo notification shows', async () => {
    await toast.waitFor({ timeout: 20000 });
    return toast.innerText();
  });
  report.check('the notification says one file was restored', /Tether restored 1 file\./.test(toastText), toastText.replace(/\s+/g, ' ').trim());
  report.check('the notification offers "Show details"', await toast.locator('.monaco-button', { hasText: 'Show details' }).isVisible().catch(() => false));
  await shot(wb, '05-undo-notification.png');
  const restored = await waitFor(() => onDisk() === scenario.original, 10000, 'the file to be restored').then(() => true, () => false);
  report.mark('undoMs', tUndo);
  report.check('the file is back to the original, byte for byte', restored && fs.readFileSync(file).equals(Buffer.from(scenario.original)));
  const detailsText = await step('"Show details" opens the undo details', async () => {
    await toast.locator('.monaco-button', { hasText: 'Show details' }).click({ timeout: 10000 });
    const details = wb.page.locator('.editor-instance .view-lines', { hasText: 'Restored' }).first();
    await details.waitFor({ timeout: 15000 });
    return (await details.innerText()).replace(/\s+/g, ' ').trim();
  });
  report.check('the undo details name the restored file', detailsText.includes(scenario.fileName), detailsText.slice(0, 120));
  await shot(wb, '06-undo-details.png');
  report.mark('scenarioMs', t0);
}

async function main() {
  prepareArtifacts();
  const missing = missingRig(rig);
  if (missing) {
    throw new Error(missing);
  }
  const dirs = freshRun(rig);
  try {
    const tBuild = Date.now();
    const vsix = buildExtensions(dirs.root);
    report.mark('buildMs', tBuild);

    fs.writeFileSync(path.join(dirs.workspace, scenario.fileName), scenario.original);
    const scriptFile = path.join(dirs.root, 'script.json');
    const eventsFile = path.join(dirs.root, 'events.jsonl');
    fs.writeFileSync(scriptFile, JSON.stringify(scenario.script, null, 2));
    const env = serverEnv(rig, dirs, { TETHER_E2E_SCRIPT: scriptFile, TETHER_E2E_EVENTS: eventsFile });

    const tInstall = Date.now();
    for (const v of [vsix.tether, vsix.agent]) {
      report.check(`installed ${path.basename(v)}`, true, installExtension(rig, dirs, env, v));
    }
    report.mark('installMs', tInstall);

    const tStart = Date.now();
    codeServer = new CodeServer(rig, dirs, env, await freePort());
    await codeServer.listening(60000);
    report.mark('codeServerListeningMs', tStart);
    browser = await launchBrowser(rig, dirs.browser, blocked);
    const page = browser.pages()[0] || (await browser.newPage());
    page.on('pageerror', (e) => pageErrors.push(String(e).slice(0, 300)));
    const wb = new Workbench(page);
    await page.goto(codeServer.url);
    await wb.ready(60000);
    report.mark('workbenchReadyMs', tStart);

    try {
      await scenarioSteps(wb, dirs, eventsFile);
    } catch (e) {
      if (!(e instanceof StepFailed)) {
        throw e;
      }
      await shot(wb, 'failure.png').catch(() => undefined);
    }
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
