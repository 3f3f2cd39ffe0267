// The checkpoints browser: each chat request's checkpoint with what the
// request did (its calls), the files with their lines added and removed,
// how long ago, and whether it was undone.

export default {
  name: 'checkpoints',
  order: 50,

  async run(t) {
    const { wb } = t;
    await t.step('"Tether: Show Checkpoints" lists the checkpoints', () => wb.palette('Tether: Show Checkpoints', 15000, { waitHidden: false }));
    const rows = wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await t.step('the checkpoints show', () => t.waitFor(async () => (await wb.quickInputTitle()).startsWith('Tether checkpoints') && (await rows.count()) > 0, 20000, 'the checkpoints quick pick'));
    const texts = (await rows.allInnerTexts()).map((s) => s.replace(/\s+/g, ' '));
    t.note(`rows: ${JSON.stringify(texts)}`);
    // The problems scenario edits calc.ts twice: the type error (one line
    // changed) and a comment (one line added).
    const calc = texts.find((s) => s.includes('calc.ts +1 −1'));
    const greet = texts.find((s) => s.includes('greet.txt'));
    t.check('the TypeScript edit: its call, when, and the lines changed', calc && /ago|just now/.test(calc) && /edit/i.test(calc), calc);
    const comment = texts.find((s) => s.includes('calc.ts +1 −0'));
    t.check('the comment added to it has a checkpoint of its own', comment && /Editing src\/calc\.ts/.test(comment), comment);
    t.check('the reviewed edit is marked undone, with its counts', greet && /undone/.test(greet) && /greet\.txt \+2 −2/.test(greet), greet);
    await t.shot('checkpoints');
    await wb.page.keyboard.press('Escape');
  },
};
