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
    const tooltip = async () => {
      await item.hover();
      const tip = wb.page.locator('.monaco-hover:visible, .workbench-hover:visible').last();
      const text = await t.waitFor(async () => {
        const s = (await tip.innerText().catch(() => '')).replace(/\s+/g, ' ');
        return s.includes('Tether') ? s : undefined;
      }, 10000, 'the tooltip').catch(() => '');
      return text;
    };
    t.check('a ready daemon: the item reads "Tether", no alarm', /^Tether$/.test((await look()).text) && !(await look()).error, await look());

    // The daemon is killed, and the one started in its place hangs: the
    // item stays "restarting", in red, with the reason in its tooltip.
    const real = `${binary}.real`;
    fs.renameSync(binary, real);
    fs.writeFileSync(binary, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
    try {
      process.kill(pid, 'SIGKILL');
      const restarting = await t.step('the item says "Tether: restarting" on the error background', () =>
        t.waitFor(async () => {
          const l = await look();
          return l.text.includes('restarting') && l.error ? l : undefined;
        }, 20000, 'the restarting state'));
      t.note(`while restarting: ${JSON.stringify(restarting)}`);
      const tip = await tooltip();
      t.check('the tooltip says why: the daemon stopped, killed, and is being restarted', /SIGKILL/.test(tip) && /restart/i.test(tip), tip.slice(0, 300));
      await t.shot('restarting');

      // Restarts give up: the binary is gone and the hanging one is killed.
      fs.rmSync(binary);
      const hung = await t.waitFor(() => daemons(pgid).map(([p]) => p).find((p) => p !== pid) ?? (groupMembers(pgid).find((m) => / sleep$/.test(m)) ? Number(groupMembers(pgid).find((m) => / sleep$/.test(m)).split(' ')[0]) : undefined), 10000, 'the hanging daemon').catch(() => undefined);
      if (hung) {
        process.kill(hung, 'SIGKILL');
      }
      await wb.page.mouse.move(700, 400);
      await t.step('with restarts failing, the item says "Tether: stopped" on the error background', () =>
        t.waitFor(async () => {
          const l = await look();
          return l.text.includes('stopped') && l.error ? l : undefined;
        }, 30000, 'the stopped state'));
      const tip2 = await tooltip();
      t.check('the tooltip says why, and that a click restarts it', /not found/.test(tip2) && /Click to restart/.test(tip2), tip2.slice(0, 300));
      await t.shot('stopped');
    } finally {
      fs.rmSync(binary, { force: true });
      fs.renameSync(real, binary);
    }
    await wb.page.mouse.move(700, 400);
    await item.click();
    await t.step('a click on the item starts the daemon again', () => t.waitFor(async () => /^Tether$/.test((await look()).text), 30000, 'the daemon to be ready'));
    t.check('one daemon runs after the click', daemons(pgid).length === 1, daemons(pgid));
    await t.shot('ready-again');
  },
};
