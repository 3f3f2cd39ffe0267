// A daemon that died looks different from one that is busy: after it is
// killed the status item says "restarting" on the error background, with
// the reason in its tooltip; when restarts give up it says "stopped", still
// red, and a click starts it again.

import fs from 'node:fs';
import path from 'node:path';

import { groupMembers } from '../lib/rig.mjs';

/** The Tether daemons running in code-server's process group: [pid, binary]. */
function daemons(pgid) {
  const out = [];
  for (const m of groupMembers(pgid)) {
    const pid = Number(m.split(' ')[0]);
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      continue;
    }
    if (argv.length >= 2 && path.basename(argv[0]) === 'tether' && argv[1] === 'serve') {
      out.push([pid, argv[0]]);
    }
  }
  return out;
}

export default {
  name: 'status',
  order: 70,

  async run(t) {
    const { wb } = t;
    const pgid = t.server.pgid;
    const [[pid, binary]] = await t.step('the daemon runs', () => t.waitFor(() => (daemons(pgid).length === 1 ? daemons(pgid) : undefined), 30000, 'one Tether daemon'));
    const item = wb.page.locator('.statusbar-item', { has: wb.page.locator('a, .statusbar-item-label', { hasText: /^\s*Tether/ }) }).filter({ hasNotText: 'review' }).first();
    const look = async () => ({
      text: ((await item.innerText().catch(() => '')) || '').trim(),
      error: await item.evaluate((n) => n.classList.contains('error-kind')).catch(() => false),
    });
    t.check('a ready daemon: the item reads "Tether", no alarm', /^Tether$/.test((await look()).text) && !(await look()).error, await look());

    // Killed: restarting, in red, the reason in the tooltip.
    process.kill(pid, 'SIGKILL');
    const restarting = await t.step('the item says "Tether: restarting" on the error background', () =>
      t.waitFor(async () => {
        const l = await look();
        return l.text.includes('restarting') && l.error ? l : undefined;
      }, 15000, 'the restarting state'));
    await t.shot('restarting');
    t.note(`while restarting: ${JSON.stringify(restarting)}`);
    await t.step('the daemon is back: the item reads "Tether" again', () => t.waitFor(async () => /^Tether$/.test((await look()).text), 30000, 'the daemon to be ready'));
    const [[pid2]] = daemons(pgid);
    t.check('a new daemon runs', pid2 !== pid, { before: pid, after: pid2 });

    // Restarts that cannot work: the binary is gone. The item says stopped, in red, and why.
    const away = `${binary}.away`;
    fs.renameSync(binary, away);
    try {
      process.kill(pid2, 'SIGKILL');
      await t.step('with restarts failing, the item says "Tether: stopped" on the error background', () =>
        t.waitFor(async () => {
          const l = await look();
          return l.text.includes('stopped') && l.error ? l : undefined;
        }, 30000, 'the stopped state'));
      await item.hover();
      const tip = wb.page.locator('.monaco-hover:visible, .workbench-hover:visible').last();
      const tipText = await t.waitFor(async () => {
        const s = (await tip.innerText().catch(() => '')).replace(/\s+/g, ' ');
        return s.includes('Tether') ? s : undefined;
      }, 10000, 'the tooltip').catch(() => '');
      t.check('the tooltip says why and that a click restarts it', /not found/.test(tipText) && /Click to restart/.test(tipText), tipText.slice(0, 300));
      await t.shot('stopped');
    } finally {
      fs.renameSync(away, binary);
    }
    await wb.page.mouse.move(800, 400);
    await item.click();
    await t.step('a click on the item starts the daemon again', () => t.waitFor(async () => /^Tether$/.test((await look()).text), 30000, 'the daemon to be ready'));
    t.check('one daemon runs after the click', daemons(pgid).length === 1, daemons(pgid));
    await t.shot('ready-again');
  },
};
