// Shell approvals in the chat: the daemon's question stands in the chat as
// VS Code's own confirmation, with the full command line, in the flow of
// the call; every one of Tether's answers is reachable there: Allow (once),
// Skip, "Always allow <programs>" and "No, stop" (links in the message).
// Each step is asked once; "always" saves the rule, so the next command of
// those programs asks nothing; VS Code never offers to approve Tether's
// questions by itself, so every new question is asked again.
//
// It runs at the sandbox's landlock level, where a command asks before it
// runs as it always did: at the full level a sandboxed command without
// network writes into an overlay and is reviewed after it ran instead
// (the `capture` scenario).

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
  network: 'git init -q nested',
  outside: 'touch outside.txt',
};

/** What the agent passes beside the command line. */
const extra = {
  network: { network: true, description: 'Make a nested repository' },
  outside: { sandbox: false },
};

const order = ['allow', 'skip', 'always', 'ruled', 'no', 'again', 'network', 'outside'];

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
  fresh: true,
  settings: { 'tether.shell.sandbox': 'landlock' },
  agent: {
    [marker]: {
      steps: order.map((k) => ({ tool: 'tether_shell', input: { command: commands[k], ...(extra[k] ?? {}) } })),
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
    // VS Code draws a message's links in the text's colour, without
    // underline: Tether's answers are drawn as buttons, bold and in
    // brackets, each on a line of its own, with a pointer.
    const looks = await first.locator('a[data-href^="command:tether.confirmAnswer"]').evaluateAll((as) => as.map((a) => ({
      text: a.innerText.trim(),
      bold: Number(getComputedStyle(a).fontWeight) >= 600,
      pointer: getComputedStyle(a).cursor === 'pointer',
      top: Math.round(a.getBoundingClientRect().top),
    })));
    t.check('Tether\'s answers look like buttons: "[ Always allow touch ]" and "[ No, stop ]", bold, on lines of their own, with a pointer',
      looks.length === 2 && looks[0].text === '[ Always allow touch ]' && looks[1].text === '[ No, stop ]'
      && looks.every((l) => l.bold && l.pointer) && looks[0].top !== looks[1].top, looks);
    await first.locator('a[data-href^="command:tether.confirmAnswer"]').first().scrollIntoViewIfNeeded().catch(() => undefined);
    await t.shot('answers-as-buttons');
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

    // 7. Network access: said in the title, the agent's description shown,
    // "always" scoped to the program and subcommand with network.
    const net = await confirmationOf('network');
    const netText = (await net.innerText()).replace(/\s+/g, ' ');
    // The confirmation's title stands in its own header, above the widget's message.
    const panelText = async () => (await wb.page.locator('.part.auxiliarybar').first().innerText()).replace(/\s+/g, ' ');
    const chatText = await panelText();
    t.check('a command with network access says so in its title', chatText.includes('Tether: run this command with network access?'), chatText.slice(-400));
    t.check("the agent's description is shown with the command", netText.includes('Make a nested repository (run git init with network access): git init -q nested'), netText.slice(0, 300));
    t.check('"always" is scoped to the program and subcommand, with network', netText.includes('Always allow git init with network access'), netText.slice(0, 300));
    await t.shot('network');
    await wb.confirmationButton('Allow Once').click();
    const networked = await resultOf('network');
    t.check('the command ran', /exit code 0/.test(networked) && t.exists('nested/.git/HEAD'), networked.split('\n').slice(-2).join(' / '));

    // 8. Outside the sandbox: said in the title, and no "always".
    const out = await confirmationOf('outside');
    const outText = (await out.innerText()).replace(/\s+/g, ' ');
    const outChat = await panelText();
    t.check('a command outside the sandbox says so, with what it may do', outChat.includes('Tether: run this command outside the sandbox?') && outText.includes('all of your rights'), outText.slice(0, 300));
    t.check('no "always" is offered for a command outside the sandbox', !/Always allow/.test(outText), outText.slice(0, 300));
    await t.shot('outside');
    await wb.confirmationButton('Allow Once').click();
    const outsideResult = await resultOf('outside');
    t.check('it ran, and its result says it ran outside the sandbox', t.exists('outside.txt') && /outside the sandbox/.test(outsideResult), outsideResult.split('\n').slice(-2).join(' / '));

    await t.replied();
    await t.shot('chat-after');

    // 9. "Tether: Review Permissions" lists the saved rules one by one;
    // picking one forgets it, after the user says so.
    await t.step('"Tether: Review Permissions" lists the saved rules', () => wb.palette('Tether: Review Permissions', 15000, { waitHidden: false }));
    const touchRow = wb.quickPickRow('always run touch');
    await t.step('each rule is a row', () => touchRow.waitFor({ timeout: 15000 }));
    t.check('the mkdir rule is listed too', await wb.quickPickRow('always run mkdir').isVisible().catch(() => false));
    await t.shot('permissions');
    await touchRow.click();
    const forget = wb.page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Forget It' }).first();
    await t.step('forgetting asks first', () => forget.waitFor({ timeout: 15000 }));
    await t.shot('forget-rule');
    await forget.click();
    await t.step('the rule is gone from allow.json', () => t.waitFor(() => !/"touch"/.test(savedRules(t.dirs.xdg)) || undefined, 15000, 'the touch rule to be removed'));
    const left = savedRules(t.dirs.xdg);
    t.check('only the picked rule was forgotten', /"mkdir"/.test(left) && !/"touch"/.test(left), left.replace(/\s+/g, ' ').slice(0, 200));
  },
};
