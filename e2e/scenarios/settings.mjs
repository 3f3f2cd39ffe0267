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
    const body = wb.page.locator('.settings-editor .settings-body').first();
    // The list only renders what fits on screen, so each setting is looked
    // up by its id, as a user searching for it would.
    const search = async (query, want) => {
      await wb.page.keyboard.press('Control+A');
      await wb.page.keyboard.insertText(query);
      return t.waitFor(async () => {
        const s = (await body.innerText().catch(() => '')).replace(/\u00a0/g, ' ');
        return want.test(s) ? s : undefined;
      }, 20000, `the settings matching ${query}`);
    };
    await t.step('Tether\'s settings are listed', () => search('@ext:tether-dev.tether', /Tether/));
    const tab = (await wb.page.locator('.settings-editor .settings-tabs-widget .action-item .action-label.checked').first().innerText().catch(() => '')).trim();
    t.check('the User tab is the one shown', /^User/.test(tab), tab);
    await t.shot('settings');
    for (const [id, name, words] of [
      ['tether.path', 'Path', 'bundled with the extension'],
      ['tether.diagnostics.settleMs', 'Settle Ms', 'waits at most'],
      ['tether.permissionMode', 'Permission Mode', 'asks before acting'],
      ['tether.shell.defaultTimeout', 'Default Timeout', 'Seconds a shell command'],
      ['tether.writeRoots', 'Write Roots', 'Folders outside the workspace that file changes may reach'],
      ['tether.shell.sandbox', 'Sandbox', 'How shell commands are confined'],
      ['tether.shell.writablePaths', 'Writable Paths', 'sandboxed shell commands may write'],
    ]) {
      const text = await search(`@ext:tether-dev.tether ${id}`, new RegExp(name)).catch(() => '');
      t.check(`"${name}" shows in the User tab, with its description`, text.includes(name) && text.includes(words), text.slice(0, 200));
      if (id === 'tether.writeRoots') {
        await t.shot('settings-write-roots');
      }
    }
    // The settings editor shows as a modal over the workbench: Escape leaves it.
    await wb.page.keyboard.press('Escape');
    await wb.page.keyboard.press('Escape');
    await wb.palette('View: Close All Editors');
  },
};
