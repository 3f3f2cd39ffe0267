// What a command wrote, reviewed after it ran: the scripted agent runs
// `sed -i` on two tracked files. The sandbox runs it over an overlay, so
// nothing asks before it runs; its changes come back as one review of both
// files in VS Code's multi-file diff, nothing written meanwhile; Approve
// writes both; "Tether: Undo Last Request" puts both back, byte for byte.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

import { tetherBin } from '../lib/binary.mjs';

const marker = '#capture';
const files = {
  'capture/one.txt': 'colour one: old\nkeep this line\n',
  'capture/two.txt': 'keep this line\ncolour two: old\n',
};
const command = "sed -i 's/: old$/: new/' capture/one.txt capture/two.txt && echo sed-done";
const edited = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.replace(': old\n', ': new\n')]));

export default {
  name: 'capture',
  order: 25,
  files,
  agent: {
    [marker]: {
      steps: [{ tool: 'tether_shell', input: { command, description: 'Rename the colours' } }],
      reply: 'E2E_AGENT_DONE the colours are renamed',
    },
  },

  async run(t) {
    const { wb } = t;
    const onDisk = (name) => fs.readFileSync(t.ws(name), 'utf8');
    const allAre = (want) => Object.keys(files).every((k) => onDisk(k) === want[k]);
    // Commands are captured only at the sandbox's full level; on a machine
    // without it (no user namespaces or overlays) there is nothing to see
    // here, and the report says so rather than failing on the kernel.
    const doctor = spawnSync(tetherBin(t.dirs), ['doctor'], { encoding: 'utf8', cwd: t.dirs.workspace });
    const sandbox = (doctor.stdout || '').split('\n').find((l) => /^\S+\s+sandbox\s/.test(l)) || '';
    if (!/\ssandbox\s+full\b/.test(sandbox)) {
      t.note(`not run: this machine's sandbox is not at the full level, so commands are not captured (tether doctor: ${sandbox.trim() || doctor.stderr.trim()})`);
      return;
    }
    await t.chat(`@tethertest ${marker} rename the colours`);

    const approve = wb.diffLens('Approve');
    await t.step('the command\'s changes come back as a review', () => approve.waitFor({ timeout: 90000 }));
    t.check('no confirmation was asked before the command ran', !(await wb.confirmation().isVisible().catch(() => false)));
    const tabs = (await wb.page.locator('.tabs-container .tab').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim());
    t.check('one review of both files: the multi-file diff names 2 files', tabs.some((s) => s.includes("Review Tether's changes: ") && s.includes('changed (2 files)')), tabs);
    const diffs = wb.page.locator('.monaco-diff-editor');
    await t.waitFor(async () => (await diffs.count()) >= 2 || undefined, 20000, 'both files in the diff').catch(() => undefined);
    const shown = (await wb.page.locator('.monaco-diff-editor .editor.modified .view-lines').allInnerTexts()).join('\n').replace(/\u00a0/g, ' ');
    t.check('the review shows both files\' new lines', shown.includes('colour one: new') && shown.includes('colour two: new'), shown.slice(0, 300));
    t.check('nothing is written while the review waits', allAre(files));
    await t.shot('review');

    await t.step('"Approve" answers the review', () =>
      wb.clickUntil(approve, async () => t.ownEvents().some((e) => e.kind === 'tool-result' && e.tool === 'tether_shell'), 30000, 'the command\'s result'));
    await t.step('the chat turn ends', () => t.replied());
    const result = t.toolResult('tether_shell').result;
    t.check('the result has the output, the exit code and the files taken in',
      /sed-done/.test(result) && /exit code 0/.test(result) && /one\.txt/.test(result) && /two\.txt/.test(result), result.split('\n').slice(-4).join(' / '));
    const written = await t.waitFor(() => allAre(edited) || undefined, 10000, 'both files to be written').then(() => true, () => false);
    t.check('Approve wrote both files', written, Object.keys(files).map(onDisk));
    const reviewTab = wb.page.locator('.tabs-container .tab', { hasText: "Review Tether's changes: " });
    t.check('the review closed after Approve', await t.waitFor(async () => (await reviewTab.count()) === 0 || undefined, 10000, 'the review tab to close').then(() => true, () => false));
    await t.shot('approved');

    await t.step('"Tether: Undo Last Request" runs from the command palette', () => wb.palette('Tether: Undo Last Request'));
    const toast = wb.notification('Tether restored');
    const toastText = await t.step('undo notification shows', async () => {
      await toast.waitFor({ timeout: 20000 });
      return toast.innerText();
    });
    t.check('the notification says two files were restored', /Tether restored 2 files/.test(toastText), toastText.replace(/\s+/g, ' ').trim());
    const restored = await t.waitFor(() => allAre(files) || undefined, 10000, 'both files to be restored').then(() => true, () => false);
    t.check('both files are back, byte for byte', restored && Object.keys(files).every((k) => fs.readFileSync(t.ws(k)).equals(Buffer.from(files[k]))));
    await t.shot('undone');
    await wb.palette('View: Close All Editors');
  },
};
