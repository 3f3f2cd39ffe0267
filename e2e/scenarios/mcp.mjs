// tether mcp in VS Code's own MCP client, registered by a .vscode/mcp.json
// as a user would (tether mcp --print-config vscode): the chat's agent
// calls its tools as mcp_<server>_<tool>.
//  - A read runs without a confirmation: the tool is marked read-only.
//  - A write is confirmed by VS Code, then asked by Tether as an
//    elicitation: a readable diff (its own lines, in a diff block), "yes"
//    writes, "no" leaves the file, and what the model is handed (VS Code
//    gives it the structured content) says the change did not happen.
//  - With --mode acceptEdits, VS Code's confirmation is the approval of an
//    edit inside the workspace: Tether asks nothing more.
//  - With --approvals auto (the default) and Tether's extension open on
//    the project, the question goes to the editor: the per-hunk review,
//    naming the client that asks; the checkpoint shows in the browser.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

import { tetherBin } from '../lib/binary.mjs';

const original = 'read through MCP\n';

// Three chat turns, one for each way of running tether mcp. VS Code names
// an MCP server's tools after the name the server gives itself, so only
// one runs at a time: .vscode/mcp.json is rewritten between the turns.
const scripts = {
  '#mcp-elicit': [
    { tool: 'mcp_tether_read_file', input: { path: 'notes.txt' } },
    { tool: 'mcp_tether_edit_file', input: { path: 'notes.txt', old_string: 'read through MCP', new_string: 'edited through MCP' } },
    { tool: 'mcp_tether_write_file', input: { path: 'notes.txt', content: 'overwritten through MCP\n' } },
  ],
  '#mcp-accept': [
    { tool: 'mcp_tether_write_file', input: { path: 'accepted.txt', content: 'written on VS Code\'s confirmation alone\n' } },
  ],
  '#mcp-wait': [],
  '#mcp-auto': [
    { tool: 'mcp_tether_read_file', input: { path: 'notes.txt' } },
    { tool: 'mcp_tether_edit_file', input: { path: 'notes.txt', old_string: 'edited through MCP', new_string: 'reviewed in the editor' } },
  ],
};

/** What `tether mcp --print-config vscode` prints for the workspace, with extra arguments for a server. */
function printConfig(bin, ws, env) {
  const r = spawnSync(bin, ['mcp', '--print-config', 'vscode', '--workspace', ws], { encoding: 'utf8', env });
  if (r.status !== 0) {
    throw new Error(`tether mcp --print-config vscode: ${r.stderr}`);
  }
  return JSON.parse(r.stdout).servers.tether;
}

/** A person reads the question before answering. */
const readingMs = 500;

/**
 * The command lines of the tether mcp processes of this binary now
 * running, read from /proc (the e2e runs on Linux).
 */
function mcpCommandLines(bin) {
  const lines = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    } catch {
      continue;
    }
    if (argv[0] === bin && argv[1] === 'mcp') {
      lines.push(argv);
    }
  }
  return lines;
}

export default {
  name: 'mcp',
  order: 90,
  fresh: true,
  files: { 'notes.txt': original },
  agent: Object.fromEntries(Object.entries(scripts).map(([m, steps]) => [m, { steps, reply: `E2E_AGENT_DONE ${m}` }])),

  async run(t) {
    const { wb } = t;
    const page = wb.page;
    const bin = tetherBin(t.dirs);
    const base = printConfig(bin, t.dirs.workspace, process.env);
    t.check('tether mcp --print-config vscode names the shipped binary and the workspace', base.command === bin && base.args.join(' ') === `mcp --workspace ${t.dirs.workspace}`, base);
    /**
     * Registers tether mcp with these extra arguments, as the one server of
     * the workspace, and waits until VS Code runs it with exactly those
     * arguments and offers its tools: a chat request starts the server,
     * whose tools come a moment later. Offered tools alone do not tell: the
     * server registered before may still be the one running.
     */
    const register = async (...extra) => {
      fs.mkdirSync(t.ws('.vscode'), { recursive: true });
      fs.writeFileSync(t.ws('.vscode/mcp.json'), JSON.stringify({ servers: { tether: { ...base, args: [...base.args, ...extra] } } }, null, 2) + '\n');
      await page.waitForTimeout(2000); // VS Code reads the file again when it changes
      const want = JSON.stringify([bin, ...base.args, ...extra]);
      const offered = () => t.ownEvents().some((e) => e.kind === 'tools' && e.names.includes('mcp_tether_read_file'));
      for (let i = 0; i < 10; i++) {
        await t.chat('@tethertest #mcp-wait Are Tether\'s MCP tools there?');
        await t.replied();
        const running = mcpCommandLines(bin);
        if (offered() && running.length === 1 && JSON.stringify(running[0]) === want) {
          return;
        }
        await page.waitForTimeout(2000);
      }
      throw new Error(`VS Code never ran ${want} alone and offered its tools; running: ${JSON.stringify(mcpCommandLines(bin))}`);
    };

    let steps = [];
    const result = (i) => t.waitFor(() => t.ownEvents().filter((e) => e.kind === 'tool-result')[i], 90000, `the result of ${steps[i].tool}`);
    const structured = (r) => {
      try {
        return JSON.parse(r.result);
      } catch {
        return { unparsed: r.result };
      }
    };
    // VS Code's own confirmation of a tool that is not read-only. It is
    // answered "Allow Once" (from the button's menu): each call is
    // confirmed, as a careful user does.
    const confirm = page.locator('.part.auxiliarybar .monaco-button', { hasText: /^\s*Allow in this Session\s*$/ }).first();
    // A click on the menu's item while it is still being laid out can be
    // lost (the menu stays open, nothing is allowed): the answer is given
    // again until the confirmation has gone.
    const allowOnce = async () => {
      await page.waitForTimeout(readingMs);
      for (let attempt = 1; ; attempt++) {
        await wb.confirmationMenu('Allow Once').catch(async (e) => {
          const items = await page.locator('.monaco-menu .action-label, .context-view .action-label').allInnerTexts().catch(() => []);
          throw new Error(`${e.message.split('\n')[0]}; the menu offers ${JSON.stringify(items)}`);
        });
        if (await confirm.waitFor({ state: 'hidden', timeout: 5000 }).then(() => true, () => false)) {
          return;
        }
        if (attempt === 3) {
          throw new Error('VS Code\'s confirmation stayed after "Allow Once" was picked three times');
        }
        await page.keyboard.press('Escape');
      }
    };
    // The question waiting for an answer stands above the chat's input.
    const question = page.locator('.part.auxiliarybar .interactive-input-part .chat-question-carousel-container').first();
    /**
     * Picks an answer. Picking submits a one-question form; the list
     * scrolls inside the chat, so it is scrolled (with the wheel, as a
     * person does) until the answer shows whole.
     */
    const answer = async (title) => {
      await page.waitForTimeout(readingMs);
      const list = question.locator('.chat-question-input-scrollable').first();
      const item = question.locator('.chat-question-list-item', { has: page.locator('.chat-question-list-label-title', { hasText: new RegExp(`^\\s*${title}\\s*$`) }) }).first();
      const whole = async () => {
        const [a, b] = [await list.boundingBox(), await item.boundingBox()];
        return a && b && b.y >= a.y && b.y + b.height <= a.y + a.height;
      };
      for (let i = 0; i < 10 && !(await whole()); i++) {
        const box = await list.boundingBox();
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.wheel(0, 120);
        await page.waitForTimeout(150);
      }
      await item.click();
      const submit = question.locator('.monaco-button', { hasText: /^\s*Submit\s*$/ }).first();
      if (await submit.isVisible().catch(() => false)) {
        await submit.click().catch(() => undefined);
      }
      await question.waitFor({ state: 'hidden', timeout: 20000 });
    };

    await t.step('VS Code starts tether mcp from .vscode/mcp.json and offers its tools', () => register('--approvals', 'elicitation'));
    steps = scripts['#mcp-elicit'];
    await t.chat('@tethertest #mcp-elicit Change notes.txt through Tether\'s MCP server.');

    // 1. A read: no confirmation at all.
    const read = await t.step('the read ran without any confirmation (readOnlyHint)', () => result(0));
    t.check('the read returned the file', /read through MCP/.test(read.result), read.result);
    t.check('VS Code ran tether mcp\'s tools under their MCP names', t.ownEvents().some((e) => e.kind === 'tools' && e.names.includes('mcp_tether_write_file')));

    // 2. An edit: VS Code confirms, Tether asks with the diff, yes writes.
    await t.step('VS Code asks to run edit_file', () => confirm.waitFor({ state: 'visible', timeout: 60000 }));
    await allowOnce();
    await t.step('Tether asks about the edit as an elicitation in the chat', () => question.waitFor({ state: 'visible', timeout: 60000 }));
    const msg = question.locator('.chat-question-carousel-message');
    // The diff's code block is laid out (and coloured) a moment after the
    // question shows: its lines are read once it is there.
    await msg.locator('.monaco-tokenized-source, code').first().waitFor({ state: 'visible', timeout: 10000 }).catch(() => undefined);
    await page.waitForTimeout(500);
    const lines = (await msg.innerText()).split('\n').map((l) => l.replace(/\u00a0/g, ' ').trim());
    t.check('the question names the change and its counts', lines[0] === 'Edit notes.txt · +1 −1 in 1 hunk', lines[0]);
    t.check('the diff keeps its line breaks: each line on its own', lines.includes('-read through MCP') && lines.includes('+edited through MCP') && lines.includes('@@ -1 +1 @@'), lines);
    t.check('the diff is shown as a diff (a code block VS Code colours)', (await msg.locator('.monaco-tokenized-source, code').count()) > 0);
    const options = (await question.locator('.chat-question-list-label-title').allInnerTexts()).map((s) => s.trim());
    t.check('the answers are yes, always, skip and no', JSON.stringify(options) === '["yes","always","skip","no"]', options);
    await t.shot('question-readable-diff');
    t.check('nothing is written while the question waits', t.read('notes.txt') === original);
    await t.step('answering "yes"', () => answer('yes'));
    const edit = structured(await result(1));
    t.check('"yes" wrote the edit', t.read('notes.txt') === 'edited through MCP\n', t.read('notes.txt'));
    t.check('the model is told it was written, with the diff and the checkpoint', edit.status === 'written' && /\+edited through MCP/.test(edit.diff || '') && Boolean(edit.checkpoint), edit);

    // 3. An overwrite: "no" leaves the file, and the model hears so.
    await t.step('VS Code asks to run write_file', () => confirm.waitFor({ state: 'visible', timeout: 60000 }));
    await allowOnce();
    await t.step('Tether asks about the overwrite', () => question.waitFor({ state: 'visible', timeout: 60000 }));
    await t.step('answering "no"', () => answer('no'));
    const declined = structured(await result(2));
    t.check('"no" left the file as it was', t.read('notes.txt') === 'edited through MCP\n', t.read('notes.txt'));
    t.check('the model is told the change did not happen: declined, no diff, no checkpoint', declined.status === 'declined'
      && /did not happen/.test(declined.message || '') && !declined.diff && !declined.checkpoint, declined);
    await t.shot('declined-result');

    await t.step('the first turn ends', () => t.replied());

    // 4. acceptEdits: VS Code's confirmation is the approval.
    await t.step('tether mcp --mode acceptEdits is registered', () => register('--mode', 'acceptEdits', '--approvals', 'elicitation'));
    steps = scripts['#mcp-accept'];
    await t.chat('@tethertest #mcp-accept Write accepted.txt through Tether\'s MCP server.');
    await t.step('VS Code asks to run write_file', () => confirm.waitFor({ state: 'visible', timeout: 60000 }));
    await allowOnce();
    const accepted = structured(await result(0));
    t.check('with --mode acceptEdits the write needed no second question', accepted.status === 'written' && t.exists('accepted.txt'), accepted);

    await t.step('the second turn ends', () => t.replied());

    // 5. auto, with Tether's extension running on the project (any of its
    // commands or tools starts it): the editor reviews the change.
    await t.step('Tether\'s extension runs (its log opens)', () => wb.palette('Tether: Show Log'));
    await t.step('tether mcp with the default approvals (auto) is registered', () => register());
    steps = scripts['#mcp-auto'];
    await t.chat('@tethertest #mcp-auto Change notes.txt through Tether\'s MCP server.');
    await result(0);
    await t.step('VS Code asks to run edit_file', () => confirm.waitFor({ state: 'visible', timeout: 60000 }));
    await allowOnce();
    const approve = wb.diffLens('Approve');
    await t.step('the edit opens in Tether\'s per-hunk review instead of an elicitation', () => approve.waitFor({ timeout: 60000 }));
    const tab = await page.locator('.tabs-container .tab.active').first().innerText().catch(() => '');
    t.check('the review names the client that asks', /Review Tether's change: notes\.txt \(from .+\)/.test(tab), tab.trim());
    t.check('no elicitation was shown for it', !(await question.isVisible().catch(() => false)));
    await t.shot('review-in-the-editor');
    await t.step('"Approve" answers the review', () => wb.clickUntil(approve, async () => Boolean(t.ownEvents().filter((e) => e.kind === 'tool-result')[1]), 30000, 'the edit\'s result'));
    const reviewed = structured(await result(1));
    t.check('the approved edit is written', reviewed.status === 'written' && t.read('notes.txt') === 'reviewed in the editor\n', reviewed);
    await t.step('the third turn ends', () => t.replied());

    await t.step('"Tether: Show Checkpoints" lists tether mcp\'s checkpoints', () => wb.palette('Tether: Show Checkpoints', 15000, { waitHidden: false }));
    const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await t.waitFor(async () => (await wb.quickInputTitle()).startsWith('Tether checkpoints') && (await rows.count()) > 0, 20000, 'the checkpoints').catch(() => undefined);
    const texts = (await rows.allInnerTexts()).map((s) => s.replace(/\s+/g, ' '));
    // Three of tether mcp's requests wrote: the elicited edit, the
    // acceptEdits write, the edit reviewed in the editor.
    t.check('the editor lists the checkpoints tether mcp made (one undo store)', texts.filter((s) => /edited notes\.txt/.test(s)).length === 2 && texts.some((s) => /created accepted\.txt/.test(s)), texts);
    await t.shot('checkpoints');
    await page.keyboard.press('Escape');
  },
};
