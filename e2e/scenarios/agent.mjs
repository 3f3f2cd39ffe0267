// A sub-agent in the real editor. A chat request to @tethertest writes a
// plan (tether_todo) and hands a question to tether_agent in inspect mode.
// Tether's daemon runs the child and asks the extension for each of its
// model turns (model/chat); the extension takes them from the editor's
// language model (here the test extension's scripted model, picked by
// tether.agent.model), which plays the script's `child` part: list the
// folder, read notes.txt, answer. The "Tether Plan" view must show the
// child's calls under the agent call, under the step in progress, with a
// pass icon and a duration each, and a badge on the Explorer; clicking a
// call must open its result. VS Code may ask the user's consent before
// Tether first uses the model: the scenario answers Allow and notes it.

const marker = '#sub-agent';
const step = 'Find out what the notes ask for';
const description = 'read the notes';

/** The plan view's rows, as labels: the step, the agent call, and its calls beneath it. */
const rows = {
  step,
  agent: `Sub-agent (inspect): ${description}`,
  children: ['Listing the workspace folder', 'Reading notes.txt'],
};

export default {
  name: 'agent',
  order: 70,
  // The scripted model is the sub-agents' model.
  settings: { 'tether.agent.model': 'tether-e2e/tether-e2e' },
  files: { 'notes.txt': 'Buy oat milk.\nCall the plumber about the kitchen tap.\n' },
  agent: {
    [marker]: {
      steps: [
        { tool: 'tether_todo', input: { items: [{ text: step, status: 'in_progress' }, { text: 'Tell the user', status: 'pending' }] } },
        // The marker in the child's task picks this script for the child's turns too.
        { tool: 'tether_agent', input: { mode: 'inspect', description, prompt: `${marker} Read notes.txt in the workspace and say what it asks for.` } },
      ],
      reply: 'E2E_AGENT_DONE the notes ask for oat milk and a plumber.',
      child: {
        steps: [
          { tool: 'list_dir', input: {} },
          { tool: 'read_file', input: { path: 'notes.txt' } },
        ],
        reply: 'E2E_CHILD_DONE notes.txt asks for oat milk and a call to the plumber.',
      },
    },
  },

  async run(t) {
    const { wb } = t;
    const page = wb.page;
    await t.chat(`@tethertest ${marker} What do my notes ask for? Use a sub-agent.`);
    await t.shot('chat-request');

    // VS Code may ask once whether Tether may use the other extension's
    // model; that is expected, and answered Allow.
    let consent = 0;
    const consentButton = page.locator('.monaco-dialog-box .monaco-button, .notifications-toasts .monaco-button', { hasText: /^Allow/ }).first();
    const agentResult = () => t.toolResult('tether_agent');
    await t.step('the tether_agent call returns to the chat', () => t.waitFor(async () => {
      if (await consentButton.isVisible().catch(() => false)) {
        consent++;
        await t.shot('consent');
        await consentButton.click();
      }
      return agentResult();
    }, 120000, 'the tether_agent result'));
    if (consent > 0) {
      t.note(`VS Code asked the user's consent for the model ${consent} time(s); answered Allow`);
    }

    const result = agentResult().result;
    t.check('the sub-agent finished and its answer came back', /finished after 3 model turns and 2 tool calls/.test(result) && result.includes('Its answer:\nE2E_CHILD_DONE'), result.split('\n').slice(0, 3).join(' / '));
    t.check('the result lists the file the sub-agent read', /Files it read: notes\.txt/.test(result));
    const turns = t.ownEvents().filter((e) => e.kind === 'child-turn');
    t.check('each of the child\'s turns came from the editor\'s model through model/chat', turns.length === 3, `${turns.length} child turns`);
    await t.step('the chat turn ends', () => t.replied());

    // The plan view lives in the Explorer.
    await wb.palette('View: Show Explorer');
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /tether plan/i }) }).first();
    await t.step('the Tether Plan view shows', () => pane.waitFor({ state: 'visible', timeout: 20000 }));
    const header = pane.locator('.pane-header').first();
    if ((await header.getAttribute('aria-expanded')) === 'false') {
      await header.click();
    }
    const row = (l) => pane.locator('.monaco-list-row', { hasText: l }).first();
    await t.step('the step in progress, the agent call and the child\'s calls are rows', () =>
      t.waitFor(async () => {
        for (const l of [rows.step, rows.agent, ...rows.children]) {
          if (!(await row(l).isVisible().catch(() => false))) {
            return false;
          }
        }
        return true;
      }, 20000, 'the plan rows'));
    const level = async (l) => Number(await row(l).getAttribute('aria-level'));
    const levels = { step: await level(rows.step), agent: await level(rows.agent), children: await Promise.all(rows.children.map(level)) };
    t.check('the child\'s calls are nested under the agent call, under the step', levels.agent === levels.step + 1 && levels.children.every((n) => n === levels.agent + 1), levels);
    const passed = async (l) => (await row(l).locator('.codicon-pass').count()) > 0;
    t.check('the agent call and its calls show a pass icon', (await passed(rows.agent)) && (await Promise.all(rows.children.map(passed))).every(Boolean));
    const desc = (await row(rows.children[1]).locator('.label-description').innerText().catch(() => '')).trim();
    t.check('a finished call shows its duration', /^<?\d+(\.\d)? (ms|s)$|^\d+ min \d+ s$/.test(desc), desc);
    t.check('the step in progress still spins', (await row(rows.step).locator('.codicon-loading').count()) > 0);
    const badge = (await page.locator('.activitybar .action-item', { has: page.locator('.codicon-explorer-view-icon') }).locator('.badge-content').innerText().catch(() => '')).trim();
    t.check('the Explorer shows a badge with the steps left', badge === '2', badge || 'no badge');
    await t.shot('plan-view');

    await row(rows.children[1]).click();
    const opened = page.locator('.editor-instance .view-lines', { hasText: 'Buy oat milk' }).first();
    await t.step('clicking a call opens its result', () => opened.waitFor({ timeout: 15000 }));
    await t.shot('call-result');
  },
};
