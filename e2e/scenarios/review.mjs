// The review diff: a chat request edits greet.txt in three places; Tether's
// review opens beside the chat without taking the keyboard, says what it is
// (its title, a status bar entry, a labelled row of actions on top), keeps
// typing into the proposal out of the workspace's unsaved files, drops a
// hunk with its lens and approves with the labelled "Approve". The file must
// then hold only the kept hunks; "Tether: Undo Last Request" puts it back.

import fs from 'node:fs';

const marker = '#review';
const fileName = 'greet.txt';

const names = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Dennis', 'Frances',
  'John', 'Radia', 'Tony', 'Niklaus', 'Leslie', 'Shafi', 'Butler', 'Fran', 'Robin', 'Adele',
  'Bjarne', 'Guido', 'Rob', 'Sophie', 'Tim', 'Katherine', 'Linus', 'Hedy', 'Claude', 'Jean',
  'Ivan', 'Hal', 'Juris', 'Mary', 'Peter', 'Edith', 'Brian', 'Lynn', 'Alonzo', 'Kristen'];

/** Forty lines, one greeting each, LF endings, a final newline. */
const original = names.map((n, i) => `${String(i + 1).padStart(2, '0')}: Hello, ${n}!\n`).join('');

// Three edits far enough apart (lines 3, 20 and 37) to make three hunks.
const edits = [
  { old_string: '03: Hello, Grace!\n', new_string: '03: Good morning, Grace!\n' },
  { old_string: '20: Hello, Adele!\n', new_string: '20: Good afternoon, Adele!\n' },
  { old_string: '37: Hello, Brian!\n', new_string: '37: Good evening, Brian!\n' },
];
const hunkCount = edits.length;
const droppedHunk = 2;
const approved = edits.reduce((text, e, i) => (i + 1 === droppedHunk ? text : text.replace(e.old_string, e.new_string)), original);
const keptLines = edits.filter((_, i) => i + 1 !== droppedHunk).map((e) => e.new_string.trim());
const droppedLine = edits[droppedHunk - 1].new_string.trim();

export default {
  name: 'review',
  order: 10,
  files: { [fileName]: original },
  agent: {
    [marker]: {
      steps: [
        { tool: 'tether_read_file', input: { path: fileName } },
        { tool: 'tether_multi_edit', input: { path: fileName, edits } },
      ],
      reply: 'E2E_AGENT_DONE greet.txt has new greetings.',
    },
  },

  async run(t) {
    const { wb } = t;
    const file = t.ws(fileName);
    const onDisk = () => fs.readFileSync(file, 'utf8');
    await t.chat(`@tethertest ${marker} Make the greetings in greet.txt fit the time of day.`);

    const dropLens = wb.diffLens(`Drop hunk ${droppedHunk}/${hunkCount}`);
    await t.step('Tether\'s review diff opens with a CodeLens on each hunk', () => dropLens.waitFor({ timeout: 60000 }));
    t.check('the review diff opened without taking the keyboard from the chat input',
      await wb.page.evaluate(() => Boolean(document.activeElement && document.activeElement.closest('.interactive-input-part'))));
    const chat = await wb.chatText();
    t.check('the chat says the call waits for a review', chat.includes(`Making ${hunkCount} edits in ${fileName}: waiting for your review`), chat.split('\n').filter((l) => l.includes('Making')).join(' / '));
    const read = t.toolResult('tether_read_file');
    t.check('tether_read_file ran from the chat request, with its toolInvocationToken', read && /^1\t01: Hello, Ada!/m.test(read.result)
      && t.ownEvents().filter((e) => e.kind === 'tool-call').every((e) => e.hasToken), read ? read.result.split('\n')[0] : 'no result');

    const lenses = await wb.diffLensTitles();
    for (const label of ['Approve', 'Reject', 'Always', 'Skip']) {
      t.check(`a lens labelled "${label}" tops the proposal`, lenses.some((l) => l.trim() === label), lenses.join(' | '));
    }
    for (let n = 1; n <= hunkCount; n++) {
      t.check(`lens "Drop hunk ${n}/${hunkCount}" shown`, lenses.some((l) => l.includes(`Drop hunk ${n}/${hunkCount}`)));
    }
    for (const label of ['Approve', 'Reject', 'Always Approve', 'Skip']) {
      t.check(`editor title shows ${label}`, await wb.titleAction(label).isVisible().catch(() => false));
    }
    const tab = await wb.page.locator('.tabs-container .tab.active').first().innerText().catch(() => '');
    t.check('the tab says it waits for a review', tab.includes(`Review Tether's change: ${fileName}`), tab.trim());
    const status = wb.statusItem('Tether: 1 change to review');
    t.check('the status bar says "Tether: 1 change to review"', await status.isVisible().catch(() => false));
    t.check('nothing is written while the change waits for review', onDisk() === original);
    await t.shot('review-diff');

    // The status entry opens the review, and gives it the keyboard.
    await status.click();
    await t.step('the status entry shows the review', () => t.waitFor(() => wb.page.evaluate(() => Boolean(document.activeElement && document.activeElement.closest('.monaco-diff-editor'))), 10000, 'the diff to have the keyboard'));

    // Typing into the proposal: no "unsaved" file in the Explorer.
    await wb.page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: '10: Hello, Frances!' }).first().click();
    await wb.page.keyboard.press('End');
    await wb.page.keyboard.type(' (typed)');
    await t.step('typing into the proposal marks it edited by you', () => wb.diffLens('Edited by you').waitFor({ timeout: 15000 }));
    await wb.page.waitForTimeout(800);
    const badge = await wb.explorerBadge();
    t.check('typing into the proposal leaves no unsaved file in the Explorer', badge === '', badge ? `badge "${badge}"` : undefined);
    await t.shot('typed-into-proposal');
    await t.step('"Undo my edits" puts the proposal back', () =>
      wb.clickUntil(wb.diffLens('Undo my edits'), () => dropLens.isVisible().catch(() => false), 25000, 'the hunk lenses to return'));

    const keepLens = wb.diffLens(`Keep hunk ${droppedHunk}/${hunkCount} (dropped)`);
    await t.step(`hunk ${droppedHunk} dropped (its lens now offers Keep)`, () =>
      wb.clickUntil(dropLens, () => keepLens.isVisible().catch(() => false), 25000, 'the Keep lens'));
    const badge2 = await wb.explorerBadge();
    t.check('dropping a hunk leaves no unsaved file either', badge2 === '', badge2 ? `badge "${badge2}"` : undefined);
    await t.shot('hunk-dropped');

    await t.step('the "Approve" lens answers the review', () =>
      wb.clickUntil(wb.diffLens('Approve'), async () => t.ownEvents().some((e) => e.kind === 'tool-result' && e.tool === 'tether_multi_edit'), 30000, 'the edit\'s result'));
    await t.step('the chat turn ends after Approve', () => t.replied());
    const edit = t.toolResult('tether_multi_edit');
    const droppedNote = new RegExp(`hunk\\(s\\) ${droppedHunk} were dropped`);
    const written = onDisk();
    t.check('the file holds the kept hunks and not the dropped one', written === approved,
      { kept: keptLines.every((l) => written.includes(l)), droppedAbsent: !written.includes(droppedLine) });
    t.check('the tool result tells the model which hunk was dropped', edit && droppedNote.test(edit.result), edit && edit.result.split('\n').slice(0, 3).join(' / '));
    t.check('the tool result carries the diff of what was written: the kept hunks only', edit
      && keptLines.every((l) => edit.result.includes(`\n+${l}\n`)) && !edit.result.includes(`+${droppedLine}`));
    t.check('the review diff closed after Approve', await t.waitFor(async () => !(await wb.page.locator('.monaco-diff-editor').first().isVisible().catch(() => false)), 10000, 'the diff to close').then(() => true, () => false));
    t.check('the status entry is gone once answered', await t.waitFor(async () => !(await status.isVisible().catch(() => false)), 10000, 'the status entry to go').then(() => true, () => false));
    await t.shot('chat-result');

    await t.step('"Tether: Undo Last Request" runs from the command palette', () => wb.palette('Tether: Undo Last Request'));
    const toast = wb.notification('Tether restored');
    const toastText = await t.step('undo notification shows', async () => {
      await toast.waitFor({ timeout: 20000 });
      return toast.innerText();
    });
    t.check('the notification says one file was restored', /Tether restored 1 file\./.test(toastText), toastText.replace(/\s+/g, ' ').trim());
    const restored = await t.waitFor(() => onDisk() === original, 10000, 'the file to be restored').then(() => true, () => false);
    t.check('the file is back to the original, byte for byte', restored && fs.readFileSync(file).equals(Buffer.from(original)));
    const details = wb.page.locator('.editor-instance .view-lines', { hasText: 'Restored' }).first();
    // An information toast hides itself after a while, and the wait above can
    // outlast it; the same button is then in the notification center.
    const showDetails = wb.page.locator('.notification-list-item', { hasText: 'Tether restored' })
      .locator('.monaco-button:visible', { hasText: 'Show details' }).first();
    await t.step('"Show details" opens the undo details', async () => {
      if (!(await showDetails.isVisible().catch(() => false))) {
        await wb.palette('Notifications: Show Notifications');
      }
      await wb.clickUntil(showDetails, () => details.isVisible().catch(() => false), 30000, 'the undo details');
    });
    t.check('the undo details name the restored file', (await details.innerText()).includes(fileName));
    await t.shot('undo-details');
    await wb.palette('View: Close All Editors');
  },
};
