// Settings where a user looks: Tether's settings, the daemon's among them,
// each with a description, in the Settings editor's User tab (tether.path
// included, which a machine scope hid under the Remote tab).

export default {
  name: 'settings',
  order: 60,

  async run(t) {
    const { wb } = t;
    await t.step('the Settings editor opens on the User tab', () => wb.palette('Preferences: Open User Settings'));
    const editor = wb.page.locator('.settings-editor').first();
    await editor.waitFor({ timeout: 20000 });
    await wb.page.keyboard.insertText('@ext:tether-dev.tether');
    const body = wb.page.locator('.settings-editor .settings-body').first();
    const text = await t.step('Tether\'s settings are listed', () => t.waitFor(async () => {
      const s = (await body.innerText().catch(() => '')).replace(/\u00a0/g, ' ');
      return /Settle Ms/.test(s) ? s : undefined;
    }, 20000, 'Tether\'s settings'));
    const tab = (await wb.page.locator('.settings-editor .settings-tabs-widget .action-item .action-label.checked').first().innerText().catch(() => '')).trim();
    t.check('the User tab is the one shown', /^User/.test(tab), tab);
    for (const [name, words] of [['Path', 'bundled with the extension'], ['Settle Ms', 'waits at most'], ['Permission Mode', 'asks before acting'], ['Default Timeout', 'Seconds a shell command']]) {
      t.check(`"${name}" shows in the User tab, with its description`, text.includes(name) && text.includes(words));
    }
    await t.shot('settings');
    // The settings editor shows as a modal over the workbench: Escape leaves it.
    await wb.page.keyboard.press('Escape');
    await wb.page.keyboard.press('Escape');
    await wb.palette('View: Close All Editors');
  },
};
