// The log: the "Tether" output channel is a log channel fed with the
// daemon's own levels and messages, so it reads like VS Code's channels
// (one timestamp, a [level] tag) and its level filter applies to the
// daemon's lines too.

import fs from 'node:fs';
import path from 'node:path';

/** The channel's file, which the output view shows (lines unwrapped). */
function channelFile(userData) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        walk(p);
      } else if (e.name === 'Tether.log' && p.includes('tether-dev.tether')) {
        found.push(p);
      }
    }
  };
  walk(path.join(userData, 'logs'));
  return found.sort().pop();
}

export default {
  name: 'output',
  order: 80,

  async run(t) {
    const { wb } = t;
    await t.step('"Tether: Show Log" opens the channel', () => wb.palette('Tether: Show Log'));
    const view = wb.page.locator('.part.panel .monaco-editor .view-lines').first();
    const text = await t.step('the channel shows the daemon starting', () => t.waitFor(async () => {
      const s = (await view.innerText().catch(() => '')).replace(/\u00a0/g, ' ');
      return /ready with \d+ tools/.test(s) ? s : undefined;
    }, 20000, 'the line saying the daemon is ready'));
    t.check('the view shows no raw time=… level=… fields', !/\btime=\S+ level=/.test(text));
    const file = channelFile(t.dirs.userData);
    const lines = (file ? fs.readFileSync(file, 'utf8') : '').split('\n').filter((l) => l.trim());
    t.check('no line carries the daemon\'s raw time=… level=… fields', lines.length > 0 && !lines.some((l) => /\btime=\S+ level=/.test(l) || /\[daemon\]/.test(l)), lines.find((l) => /time=|\[daemon\]/.test(l)) ?? file);
    const stamped = lines.filter((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \[(trace|debug|info|warning|error)\] /.test(l));
    t.check('every line has one timestamp and a level tag', stamped.length === lines.length, lines.filter((l) => !stamped.includes(l)).slice(0, 3));
    t.check('the daemon\'s own line "serving" is at info, without its own timestamp', lines.some((l) => /\[info\] serving version=/.test(l)), lines.find((l) => /serving/.test(l)));
    t.check('the daemon\'s own lines come at their levels', lines.some((l) => /\[info\] /.test(l)) && lines.some((l) => /\[(warning|error)\] /.test(l)),
      lines.filter((l) => /\[(warning|error)\]/.test(l)).slice(0, 2));
    await t.shot('log');
    await wb.palette('View: Close Panel').catch(() => undefined);
  },
};
