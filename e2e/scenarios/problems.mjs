// Fresh problems: with a TypeScript file open, an edit that introduces a
// type error reports that error in the edit's own result, from the
// diagnostics the editor publishes after the write; the wait ends as soon
// as they come. A second edit that changes no problem ends its wait at
// twice the slowest report seen, not at the setting.

const marker = '#problems';
const cleanMarker = '#clean-edit';
const file = 'src/calc.ts';

const original = `export function total(prices: number[]): number {
  const unused = 0;
  let sum = 0;
  for (const p of prices) {
    sum += p;
  }
  return sum;
}
`;

export default {
  name: 'problems',
  order: 40,
  // This machine is shared and loaded: TypeScript may take seconds to
  // report. The setting is there for such machines.
  settings: { 'tether.diagnostics.settleMs': 15000 },
  files: {
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022' }, include: ['src'] }, null, 2) + '\n',
    [file]: original,
  },
  agent: {
    [marker]: {
      steps: [
        { tool: 'tether_read_file', input: { path: file } },
        { tool: 'tether_edit_file', input: { path: file, old_string: '  let sum = 0;\n', new_string: '  let sum: number = "zero";\n' } },
      ],
      reply: 'E2E_AGENT_DONE edited calc.ts',
    },
    // A comment at the end: TypeScript reports the same problems again.
    [cleanMarker]: {
      steps: [
        { tool: 'tether_read_file', input: { path: file } },
        { tool: 'tether_edit_file', input: { path: file, old_string: '  return sum;\n}\n', new_string: '  return sum;\n}\n// the total of the prices\n' } },
      ],
      reply: 'E2E_AGENT_DONE commented calc.ts',
    },
  },

  /** TypeScript's server takes a while to start: open the file before the first scenario runs. */
  async warmup(t) {
    await t.wb.openFile(file);
    await t.wb.chatInput.click(); // the keyboard back to the chat, where the first scenario types
  },

  async run(t) {
    const { wb } = t;
    await t.step('the TypeScript file is open in the editor', () => wb.openFile(file));
    // TypeScript has checked the file once it fades the unused variable (a hint).
    await t.step('TypeScript checked the file', () => wb.page.locator('.monaco-editor .squiggly-inline-unnecessary').first().waitFor({ state: 'attached', timeout: 90000 }));

    await t.chat(`@tethertest ${marker} break the sum`);
    const approve = wb.diffLens('Approve');
    await t.step('the edit waits for review', () => approve.waitFor({ timeout: 60000 }));
    await wb.page.waitForTimeout(500);
    const approvedAt = Date.now();
    await approve.click();
    await t.step('the chat turn ends', () => t.replied(90000));
    const r = t.toolResult('tether_edit_file');
    const result = r ? r.result : '';
    const took = r ? r.at - approvedAt : -1;
    t.note(`the edit's result came ${took} ms after Approve`);
    t.check('the result reports the new type error, fresh from the editor',
      result.includes('New problems the editor reports after this change') && /Type 'string' is not assignable to type 'number'/.test(result),
      result.split('\n').filter((l) => /problem|error|fresh/i.test(l)).join(' / '));
    t.check('the result does not say the editor sent nothing', !/sent no fresh diagnostics/.test(result));
    await wb.openFile(file);
    await wb.page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'attached', timeout: 30000 }).catch(() => undefined);
    await t.shot('type-error');

    // An edit that changes no problem: the wait ends at twice the slowest
    // report seen for .ts files, not at the 15 s setting. How long it took
    // is noted, not asserted: the machine's load sets it.
    await t.chat(`@tethertest ${cleanMarker} comment the sum`);
    const approveClean = wb.diffLens('Approve');
    await t.step('the clean edit waits for review', () => approveClean.waitFor({ timeout: 60000 }));
    await wb.page.waitForTimeout(500);
    const cleanAt = Date.now();
    await approveClean.click();
    await t.step('the chat turn of the clean edit ends', () => t.replied(90000));
    const clean = t.toolResult('tether_edit_file'); // of this second request: chat() starts a new one
    const cleanResult = clean ? clean.result : '';
    t.note(`the clean edit's result came ${clean ? clean.at - cleanAt : -1} ms after Approve (the setting: 15000 ms)`);
    t.check('the clean edit reports no new problems', /no new problems|sent no fresh diagnostics/.test(cleanResult) && !/New problems the editor reports/.test(cleanResult),
      cleanResult.split('\n').filter((l) => /problem|fresh/i.test(l)).join(' / '));
    await t.shot('clean-edit');
  },
};
