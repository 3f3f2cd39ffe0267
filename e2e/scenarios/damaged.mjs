// A damaged checkpoint: a journal cut short (a disk filled up, a file
// truncated by hand) is listed with a warning and says what undo can and
// cannot put back, before the user chooses to undo it.

import fs from 'node:fs';
import path from 'node:path';

/** Every undo journal under the XDG state folder, oldest first (ids start with the time). */
function journals(xdg) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        walk(p);
      } else if (e.name.endsWith('.journal')) {
        found.push(p);
      }
    }
  };
  walk(path.join(xdg, 'state'));
  return found.sort((a, b) => path.basename(a).localeCompare(path.basename(b)));
}

export default {
  name: 'damaged',
  order: 55, // after the checkpoints scenario, which reads the sound ones

  async run(t) {
    const { wb } = t;
    const all = journals(t.dirs.xdg);
    t.check('the earlier scenarios left undo journals', all.length > 0, `${all.length} journals`);
    if (all.length === 0) {
      return;
    }
    // A copy of the newest journal under a newer id, cut inside its second
    // record: its first record names another checkpoint, and the rest is torn.
    const newest = all[all.length - 1];
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    const damaged = path.join(path.dirname(newest), `${stamp}-e2e0da.journal`);
    const data = fs.readFileSync(newest);
    const firstLine = data.indexOf(0x0a) + 1;
    fs.writeFileSync(damaged, data.subarray(0, Math.min(data.length - 1, firstLine + 10)), { mode: 0o600 });
    try {
      await t.step('"Tether: Show Checkpoints" lists the checkpoints', () => wb.palette('Tether: Show Checkpoints', 15000, { waitHidden: false }));
      const rows = wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
      const row = rows.filter({ hasText: 'record is damaged' }).first();
      await t.step('the damaged checkpoint is listed as damaged', () => row.waitFor({ timeout: 20000 }));
      const text = (await row.innerText()).replace(/\s+/g, ' ');
      t.check('its row carries a warning icon', (await row.locator('.codicon-warning').count()) > 0);
      const label = text.split('Its record')[0];
      t.check('its label says "damaged" once', (label.match(/damaged/g) ?? []).length === 1, label);
      t.check('its row says the record is damaged and what undo cannot do', /Its record is damaged: .*could not be read/.test(text) && /cannot be undone|Nothing in it can be put back/.test(text), text);
      await t.shot('damaged-checkpoint');
      await wb.page.keyboard.press('Escape');
    } finally {
      fs.rmSync(damaged, { force: true });
    }
  },
};
