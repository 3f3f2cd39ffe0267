// ask_user: the question is the quick pick's title, so it stays in view
// while the user types an answer of their own.

const marker = '#ask';
const question = 'Which greeting should the file use?';
const typed = 'Howdy, partner';

export default {
  name: 'ask',
  order: 30,
  agent: {
    [marker]: {
      steps: [{ tool: 'tether_ask_user', input: { question, options: ['Hello', 'Good morning'], allow_free_text: true } }],
      reply: 'E2E_AGENT_DONE asked',
    },
  },

  async run(t) {
    const { wb } = t;
    await t.chat(`@tethertest ${marker} ask me`);
    await t.step('the question shows as a quick pick', () => wb.quickPickRow('Good morning').waitFor({ timeout: 60000 }));
    t.check('the question is the title before typing', (await wb.quickInputTitle()) === question, await wb.quickInputTitle());
    await wb.page.keyboard.type(typed);
    const title = await wb.quickInputTitle();
    t.check('the question is still the title while the user types', title === question, title);
    const value = await wb.page.locator('.quick-input-widget .quick-input-box input').inputValue().catch(() => '');
    t.check('what the user typed is in the box', value === typed, value);
    await t.shot('question-while-typing');
    await wb.page.keyboard.press('Enter');
    await t.replied();
    const r = t.toolResult('tether_ask_user');
    t.check('the typed text is the answer', r && r.result.includes(typed), r && r.result);
  },
};
