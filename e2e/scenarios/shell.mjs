// Shell approvals in the chat: VS Code's own confirmation shows the full
// command line, and every one of Tether's answers is reachable there:
// Allow (once), Skip, "Always allow <programs>" and "No, stop" (links in the
// message). A confirmed call is not asked again by the daemon; "always"
// saves the rule, so the next command of those programs asks nothing. When
// VS Code approves the tool by itself ("Allow in this Session"), Tether
// still asks, in its own prompt.

import fs from 'node:fs';
import path from 'node:path';

const marker = '#shell-approvals';

const commands = {
  allow: 'touch allowed.txt',
  skip: 'touch skipped.txt',
  always: 'mkdir -p kept && touch kept/a.txt',
  ruled: 'touch again.txt',
  no: 'rm allowed.txt',
  session: 'chmod 600 allowed.txt',
  auto: 'cp allowed.txt copy.txt',
};

const order = ['allow', 'skip', 'always', 'ruled', 'no', 'session', 'auto'];

/** A person reads the command before answering; a click faster than this would look like VS Code answering by itself. */
const readingMs = 900;

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

    // 1. Allow, once: from the primary button's drop-down.
    const first = await t.step('VS Code\'s confirmation shows the full command line in the chat', () => confirmationOf('allow'));
    const text = (await first.innerText()).replace(/\s+/g, ' ');
    t.check('the confirmation offers Tether\'s answers: Allow, Skip, "Always allow touch", "No, stop"',
      /Allow/.test(text) && /Skip/.test(text) && text.includes('Always allow touch') && text.includes('No, stop'), text.slice(0, 300));
    t.check('nothing ran before the user answered', !t.exists('allowed.txt'));
    t.check('the chat does not say the command runs while it waits', !(await wb.chatText()).includes(`Running: ${commands.allow}`));
    await t.shot('confirmation');
    if (process.env.E2E_DUMP) {
      fs.writeFileSync(path.join(t.artifacts, 'shell-confirmation.html'), await first.evaluate((n) => n.outerHTML));
    }
    await t.step('"Allow Once" is picked from the drop-down', () => wb.confirmationMenu('Allow Once'));
    const allowed = await resultOf('allow');
    t.check('Allow ran the command, and the daemon asked nothing more', /exit code 0/.test(allowed) && t.exists('allowed.txt') && !(await wb.quickInput.isVisible()), allowed.split('\n').slice(-2).join(' / '));

    // 2. Skip.
    await confirmationOf('skip');
    await wb.confirmationButton('Skip').click();
    const skipped = await resultOf('skip');
    t.check('Skip does not run it, and tells the model to carry on without it', !t.exists('skipped.txt') && /skip/i.test(skipped), skipped);

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
    await wb.confirmationLink('No, stop').click();
    const declined = await resultOf('no');
    t.check('"No" does not run it, and the daemon tells the model to stop and ask', t.exists('allowed.txt') && /declined/.test(declined) && /Stop/.test(declined), declined);

    // 6. The primary button: "Allow in this Session" (VS Code's own scope: the whole tool).
    const session = await confirmationOf('session');
    const primary = (await session.locator('.monaco-button').first().innerText()).trim();
    t.note(`the primary button reads "${primary}"`);
    await session.locator('.monaco-button').first().click();
    const sessioned = await resultOf('session');
    t.check('the primary button ran the command once, the user having clicked it', /exit code 0/.test(sessioned), sessioned.split('\n').slice(-1)[0]);

    // 7. VS Code now confirms tether_shell by itself: Tether asks in its own prompt.
    const seen = await t.step('the next command is asked again (VS Code approving the tool by itself does not answer Tether)', () => t.waitFor(async () => {
      if (await wb.quickPickRow('Always').isVisible().catch(() => false)) {
        return 'prompt';
      }
      if (await wb.confirmation().filter({ hasText: commands.auto }).isVisible().catch(() => false)) {
        return 'confirmation';
      }
      return undefined;
    }, 60000, 'a question about the next command'));
    if (seen === 'confirmation') {
      t.note('VS Code asked again itself (its primary button was not a session approval)');
      await wb.page.waitForTimeout(readingMs);
      await wb.confirmationMenu('Allow Once');
    } else {
      const prompt = await wb.quickInputTitle();
      t.check('Tether\'s prompt shows the command line', prompt.includes(commands.auto), prompt);
      t.check('nothing ran before the prompt was answered', !t.exists('copy.txt'));
      await t.shot('tether-prompt');
      await wb.quickPickRow('Yes').click();
    }
    const auto = await resultOf('auto');
    t.check('the answer ran it', /exit code 0/.test(auto) && t.exists('copy.txt'), auto.split('\n').slice(-1)[0]);

    await t.replied();
    await t.shot('chat-after');
  },
};
