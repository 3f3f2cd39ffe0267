// Typing into a proposal never leaves it among the workspace's unsaved
// files, whichever way the user reaches it: a click and a paste at once,
// a click and typing, the find widget, a search result that opens the
// proposal in a plain tab of its own. Once the review is answered, no tab
// of the proposal is left open to type into (a file that can no longer
// be saved).

const marker = '#proposal-typing';
const fileName = 'draft.txt';
const original = 'alpha line\nbeta line\ngamma line\n';

export default {
  name: 'proposal',
  order: 12,
  files: { [fileName]: original },
  agent: {
    [marker]: {
      steps: [
        { tool: 'tether_read_file', input: { path: fileName } },
        { tool: 'tether_edit_file', input: { path: fileName, old_string: 'beta line', new_string: 'beta line, proposed' } },
      ],
      reply: 'E2E_AGENT_DONE proposal',
    },
  },

  async run(t) {
    const { wb } = t;
    const page = wb.page;
    const line = (text) => page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: text }).first();
    /** No unsaved file: no dirty tab, no count on the Explorer, a moment after the typing. */
    const clean = async (how) => {
      await page.waitForTimeout(1200);
      const dirty = await page.locator('.tabs-container .tab.dirty').allInnerTexts();
      const badge = await wb.explorerBadge();
      t.check(`${how}: the proposal is not left unsaved`, dirty.length === 0 && badge === '', { dirty, badge });
    };

    await t.chat(`@tethertest ${marker} Change the draft.`);
    const approve = wb.diffLens('Approve');
    await t.step('the review opens', () => approve.waitFor({ timeout: 60000 }));

    await line('beta line').click();
    await page.keyboard.insertText(' PASTED');
    await clean('a click and a paste at once');

    await line('gamma line').click();
    await page.keyboard.press('End');
    await page.keyboard.type(' (clicked)');
    await clean('a click, then typing');

    await page.keyboard.press('Control+f');
    await page.keyboard.insertText('alpha');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await page.keyboard.press('End');
    await page.keyboard.type(' (found)');
    await clean('the find widget, then typing at the match');
    await t.shot('typed-into-the-review');

    await t.step('the Search view finds the proposal', async () => {
      await wb.palette('Search: Find in Files', 15000);
      await page.keyboard.insertText('PASTED');
      await page.keyboard.press('Enter');
      await page.locator('.search-view .monaco-list-row', { hasText: 'PASTED' }).last().waitFor({ timeout: 20000 });
    });
    await page.locator('.search-view .monaco-list-row', { hasText: 'PASTED' }).last().dblclick();
    await t.step('the search result opens the proposal in a plain tab', () => page.locator('.tabs-container .tab.active', { hasText: fileName }).waitFor({ timeout: 20000 }));
    await page.locator('.editor-instance .monaco-editor .view-line', { hasText: 'gamma' }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(' (searched)');
    await clean('a search result, then typing in its tab');
    await t.shot('typed-into-a-search-result');

    await page.locator('.tabs-container .tab', { hasText: "Review Tether's change" }).first().click();
    await t.step('"Approve" answers the review', () => wb.clickUntil(approve, async () => t.ownEvents().some((e) => e.kind === 'tool-result' && e.tool === 'tether_edit_file'), 30000, 'the edit\'s result'));
    await t.step('the turn ends', () => t.replied());
    const written = t.read(fileName);
    t.check('the file holds what the user typed into the proposal, every way', ['PASTED', '(clicked)', '(found)', '(searched)'].every((w) => written.includes(w)), written);
    const left = await t.waitFor(async () => (await page.locator('.tabs-container .tab', { hasText: fileName }).count()) === 0, 10000, 'the proposal\'s tabs to close').then(() => true, () => false);
    t.check('no tab of the answered proposal is left open, the search result\'s included', left, await page.locator('.tabs-container .tab').allInnerTexts());
    await clean('after the answer');
    await t.shot('answered');
    await wb.palette('View: Close All Editors');
    await wb.palette('View: Show Explorer');
  },
};
