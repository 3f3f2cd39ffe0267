// #tether: VS Code 1.139 keeps contributed tool sets behind a proposed
// API, so docs/tools.md tells users to add Tether's tools as a tool set of
// their own ("Chat: Configure Tool Sets…"). This checks that recipe: with
// the file in the profile's prompts folder, `#tether` in a prompt names
// Tether's tools.

const marker = '#toolset-check';

const tools = ['read_file', 'list_dir', 'glob', 'grep', 'problems', 'todo', 'ask_user', 'write_file', 'edit_file', 'multi_edit', 'move_file', 'delete_file', 'shell', 'shell_output', 'shell_kill'];

export default {
  name: 'toolset',
  order: 90,
  agent: { [marker]: { steps: [], reply: 'E2E_AGENT_DONE tool set' } },
  // The profile's prompts folder, where "Chat: Configure Tool Sets…" keeps them.
  userFiles: { 'prompts/tether.toolsets.jsonc': JSON.stringify({ tether: { tools, description: "Tether's tools" } }, null, 2) + '\n' },

  async run(t) {
    const { wb } = t;
    await wb.newChat();
    t.sentAt = Date.now();
    // The input turns a known #reference into a chip and attaches it. VS
    // Code reads tool set files in the background: type again until it knows.
    const attached = wb.page.locator('.part.auxiliarybar .interactive-input-part .chat-attached-context-attachment', { hasText: 'tether' }).first();
    const recognized = await t.waitFor(async () => {
      await wb.chatInput.click();
      await wb.page.keyboard.press('Control+A');
      await wb.page.keyboard.press('Delete');
      await wb.page.keyboard.insertText(`@tethertest ${marker} `);
      await wb.page.keyboard.type('#tether ');
      return attached.waitFor({ timeout: 3000 }).then(() => true, () => false);
    }, 30000, 'the chat input to take #tether').catch(() => false);
    t.check('the chat input takes #tether as a reference to the tool set', recognized);
    await t.shot('toolset-attached');
    await wb.page.keyboard.press('Escape');
    await wb.chatInput.click();
    await wb.page.keyboard.press('End');
    await wb.page.keyboard.press('Enter');
    await t.replied();
    const req = t.ownEvents().find((e) => e.kind === 'request');
    t.note(`tool references the participant got: ${JSON.stringify(req && req.toolReferences)}`);
  },
};
