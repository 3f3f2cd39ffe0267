// Shell approvals in the chat: the daemon's question stands in the chat as
// VS Code's own confirmation, with the full command line, in the flow of
// the call; every one of Tether's answers is reachable there: Allow (once),
// Skip, "Always allow <programs>" and "No, stop" (links in the message).
// Each step is asked once; "always" saves the rule, so the next command of
// those programs asks nothing; VS Code never offers to approve Tether's
// questions by itself, so every new question is asked again.

import fs from 'node:fs';
import path from 'node:path';

const marker = '#shell-approvals';

const commands = {
  allow: 'touch allowed.txt',
  skip: 'touch skipped.txt',
  always: 'mkdir -p kept && touch kept/a.txt',
  ruled: 'touch again.txt',
  no: 'rm allowed.txt',
  again: 'cp allowed.txt copy.txt',
};

const order = ['allow', 'skip', 'always', 'ruled', 'no', 'again'];

/** A person reads the command before answering. */
const readingMs = 500;

/** Finds the project's saved rules (allow.json) under the XDG config folder. */
function savedRules(xdg) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        walk(p);
      } else if (e.name === 'allow.json') {
        found.push(fs.readFileSync(p, 'utf8'));
      }
    }
  };
  walk(path.join(xdg, 'config'));
  return found.join('\n');
}

export default {
  name: 'shell',
  order: 20,
  agent: {
    [marker]: {
      steps: order.map((k) => ({ tool: 'tether_shell', input: { command: commands[k] } })),
      reply: 'E2E_AGENT_DONE shell approvals',
    },
  },

  async run(t) {
    const { wb } = t;
    await t.chat(`@tethertest ${marker} make some files`);
    const results = () => t.ownEvents().filter((e) => e.kind === 'tool-result' && e.tool === 'tether_shell');
    const resultOf = async (k) => {
      const i = order.indexOf(k);
      const r = await t.waitFor(() => results()[i], 60000, `the result of \`${commands[k]}\``);
      return r.result;
    };
    const confirmationOf = async (k) => {
      const c = wb.confirmation().filter({ hasText: commands[k] });
      await c.waitFor({ state: 'visible', timeout: 60000 });
      await wb.page.waitForTimeout(readingMs);
      return c;
    };

    // 1. Allow.
    const first = await t.step('VS Code\'s confirmation shows the full command line in the chat', () => confirmationOf('allow'));
    const text = (await first.innerText()).replace(/\s+/g, ' ');
    t.check('the confirmation offers Tether\'s answers: Allow Once, Skip, "Always allow touch", "No, stop"',
      /Allow Once/.test(text) && /Skip/.test(text) && text.includes('Always allow touch') && text.includes('No, stop'), text.slice(0, 300));
    const buttons = (await first.locator('.chat-confirmation-widget-buttons .monaco-text-button').allInnerTexts()).map((b) => b.trim());
    t.check('VS Code offers no approval of its own scope (the whole tool, a session): Allow Once and Skip only', JSON.stringify(buttons) === '["Allow Once","Skip"]', buttons);
    t.check('nothing ran before the user answered', !t.exists('allowed.txt'));
    const waiting = await wb.chatText();
    t.check('the chat says the call waits for approval, not that it runs', waiting.includes(`Running: ${commands.allow}: waiting for your approval`), waiting.split('\n').filter((l) => l.includes(commands.allow)).join(' / '));
    await t.shot('confirmation');
    if (process.env.E2E_DUMP) {
      fs.writeFileSync(path.join(t.artifacts, 'shell-confirmation.html'), await first.evaluate((n) => n.outerHTML));
    }
    await wb.confirmationButton('Allow Once').click();
    const allowed = await resultOf('allow');
    t.check('Allow ran the command, and nothing asked again', /exit code 0/.test(allowed) && t.exists('allowed.txt') && !(await wb.quickInput.isVisible()), allowed.split('\n').slice(-2).join(' / '));

    // 2. Skip.
    await confirmationOf('skip');
    await wb.confirmationButton('Skip').click();
    const skipped = await resultOf('skip');
    t.check('Skip does not run it, and tells the model to carry on without it', !t.exists('skipped.txt') && /skipped/i.test(skipped) && /Carry on/.test(skipped), skipped);

    // 3. "Always allow mkdir and touch": a link in the message.
    const always = await confirmationOf('always');
    const link = wb.confirmationLink('Always allow mkdir and touch');
    t.check('the always link names the programs', await link.isVisible().catch(() => false), (await always.innerText()).replace(/\s+/g, ' ').slice(0, 200));
    await link.click();
    const alwaysed = await resultOf('always');
    t.check('"Always" ran the command', /exit code 0/.test(alwaysed) && t.exists('kept/a.txt'), alwaysed.split('\n').slice(-1)[0]);
    const rules = savedRules(t.dirs.xdg);
    t.check('"Always" saved a rule for each program', /"mkdir"/.test(rules) && /"touch"/.test(rules), rules.replace(/\s+/g, ' ').slice(0, 200));

    // 4. A command of allowed programs: no confirmation at all.
    const ruled = await resultOf('ruled');
    t.check('a command of programs always allowed runs without any confirmation', /exit code 0/.test(ruled) && t.exists('again.txt'), ruled.split('\n').slice(-1)[0]);

    // 5. "No, stop".
    await confirmationOf('no');
    await t.shot('deny');
    await wb.confirmationLink('No, stop').click();
    const declined = await resultOf('no');
    t.check('"No" does not run it, and the daemon tells the model to stop and ask', t.exists('allowed.txt') && /declined/.test(declined) && /Stop/.test(declined), declined);
    await t.shot('denied');

    // 6. Every new question is asked: nothing answered earlier stands in for it.
    await t.step('the next command is asked again in the chat', () => confirmationOf('again'));
    await wb.confirmationButton('Allow Once').click();
    const again = await resultOf('again');
    t.check('Allow ran it', /exit code 0/.test(again) && t.exists('copy.txt'), again.split('\n').slice(-1)[0]);
    t.check('no Tether prompt outside the chat was needed', !(await wb.quickInput.isVisible()));

    await t.replied();
    await t.shot('chat-after');
  },
};
