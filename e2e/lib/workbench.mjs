// Driving VS Code's workbench in the browser: the command palette, the chat
// panel, notifications, the diff editor. Every wait is for a condition, with
// a bound.

import { createRequire } from 'node:module';
import path from 'node:path';

/** Escapes a string for use inside a regular expression. */
export function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Starts headless Chromium (Debian's) with playwright-core from the rig, refusing every non-loopback request. */
export async function launchBrowser(rig, profileDir, blocked) {
  const require = createRequire(path.join(rig.toolsDir, 'package.json'));
  const { chromium } = require('playwright-core');
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: rig.chromium,
    headless: true,
    viewport: { width: 1600, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-default-apps', '--no-default-browser-check'],
  });
  await context.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    if (host === '127.0.0.1' || host === 'localhost') {
      return route.continue();
    }
    blocked.push(route.request().url());
    return route.abort();
  });
  return context;
}

export class Workbench {
  constructor(page) {
    this.page = page;
    this.chatInput = page.locator('.part.auxiliarybar .interactive-input-part .interactive-input-editor').first();
  }

  async ready(timeoutMs) {
    await this.page.waitForSelector('.monaco-workbench .part.editor', { timeout: timeoutMs });
  }

  /** Runs a command by its palette label: F1, type, wait for the entry, Enter. */
  async palette(label, timeoutMs = 15000, { waitHidden = true } = {}) {
    const box = this.page.locator('.quick-input-widget');
    await this.page.keyboard.press('F1');
    try {
      await box.waitFor({ state: 'visible', timeout: 3000 });
    } catch {
      // Some editors (the settings search box) keep F1: leave them, and try again.
      await this.page.keyboard.press('Escape');
      await this.page.locator('.part.statusbar').click({ position: { x: 5, y: 5 }, timeout: 2000 }).catch(() => undefined);
      await this.page.keyboard.press('Control+Shift+P');
      await box.waitFor({ state: 'visible', timeout: timeoutMs });
    }
    await this.page.keyboard.insertText(label);
    // The row whose label is exactly this one ("Chat: New Chat", not "Chat: New Chat Editor").
    const rows = this.page.locator('.quick-input-list .monaco-list-row');
    const exact = rows.filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRe(label)}\\s*$`) }) }).first();
    await rows.filter({ hasText: label }).first().waitFor({ timeout: timeoutMs });
    const row = (await exact.count()) > 0 ? exact : rows.filter({ hasText: label }).first();
    await row.click();
    if (waitHidden) {
      await box.waitFor({ state: 'hidden', timeout: timeoutMs });
    }
  }

  /** Opens a workspace file in an editor with Quick Open (Ctrl+P). */
  async openFile(rel, timeoutMs = 20000) {
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('Control+P');
    try {
      await this.quickInput.waitFor({ state: 'visible', timeout: 3000 });
    } catch {
      await this.palette('Go to File', timeoutMs, { waitHidden: false });
      await this.quickInput.waitFor({ state: 'visible', timeout: timeoutMs });
    }
    await this.page.keyboard.insertText(rel);
    const name = rel.split('/').pop();
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: timeoutMs });
    await this.page.keyboard.press('Enter');
    await this.quickInput.waitFor({ state: 'hidden', timeout: timeoutMs });
    await this.page.locator('.tabs-container .tab.active', { hasText: name }).first().waitFor({ timeout: timeoutMs });
  }

  /** Starts a new chat in the chat view (so a scenario reads only its own turn). */
  async newChat() {
    await this.openChat();
    const requests = this.page.locator('.part.auxiliarybar .interactive-list .interactive-request');
    if ((await requests.count()) === 0) {
      return; // the chat is empty already
    }
    // The "+" of the chat view's title: a new chat in the view (the
    // palette's "Chat: New Chat" may open one in an editor instead).
    const plus = this.page.locator('.part.auxiliarybar .title-actions .action-label[aria-label^="New Chat"], .part.auxiliarybar .title-actions .action-label.codicon-plus').first();
    if (await plus.isVisible().catch(() => false)) {
      await plus.click();
    } else {
      await this.chatInput.click();
      await this.page.keyboard.press('Control+L');
    }
    // The new chat replaces the old one a moment later: send nothing before it shows.
    const end = Date.now() + 20000;
    while ((await requests.count()) > 0) {
      if (Date.now() > end) {
        throw new Error('the new chat did not replace the old one');
      }
      await this.page.waitForTimeout(100);
    }
    await this.chatInput.waitFor({ state: 'visible', timeout: 20000 });
    await this.page.waitForTimeout(500);
  }

  /** The quick input (palette, quick pick, input box) while it shows. */
  get quickInput() {
    return this.page.locator('.quick-input-widget');
  }

  /** The quick input's title, or '' when it has none. */
  async quickInputTitle() {
    const t = this.page.locator('.quick-input-widget .quick-input-title');
    return (await t.isVisible().catch(() => false)) ? (await t.innerText()).trim() : '';
  }

  /** A row of the quick pick whose label contains text. */
  quickPickRow(text) {
    return this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text }).first();
  }

  /** The chat's tool confirmation on show (the newest). */
  confirmation() {
    return this.page.locator('.part.auxiliarybar .chat-confirmation-widget2, .part.auxiliarybar .chat-confirmation-widget').filter({ visible: true }).last();
  }

  /** A button of the confirmation by its exact label ("Allow", "Skip", "Allow in this Session"). */
  confirmationButton(label) {
    return this.confirmation().locator('.monaco-button, .monaco-text-button', { hasText: new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) }).first();
  }

  /** Picks an entry of the primary button's drop-down ("Allow" once, when the button offers a session). */
  async confirmationMenu(label, timeoutMs = 10000) {
    const toggle = this.confirmation().locator('.monaco-dropdown-button, .monaco-button-dropdown > .monaco-button:not(.monaco-text-button)').first();
    await toggle.click({ timeout: timeoutMs });
    const item = this.page.locator('.monaco-menu .action-item .action-label, .context-view .action-label', { hasText: new RegExp(`^\\s*${label}\\s*$`) }).first();
    await item.click({ timeout: timeoutMs });
    // A menu at the viewport's bottom edge can take the click as a hover
    // only (the item is focused, the menu stays open): the item, focused,
    // is then picked with Enter, as from the keyboard.
    if (await item.waitFor({ state: 'hidden', timeout: 1500 }).then(() => false, () => true)) {
      await item.hover().catch(() => undefined);
      await this.page.keyboard.press('Enter');
    }
  }

  /** A link in the confirmation's message. */
  confirmationLink(text) {
    return this.confirmation().locator('a', { hasText: text }).first();
  }

  /**
   * Clicks until a condition holds: a lens can be re-rendered under the
   * pointer (its provider refreshes as the document changes), and a click
   * on the old one does nothing.
   */
  async clickUntil(locator, cond, timeoutMs = 20000, what = 'the click to take effect', settleMs = 8000) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      await locator.click({ timeout: Math.max(1000, end - Date.now()) }).catch(() => undefined);
      const until = Date.now() + settleMs;
      while (Date.now() < until) {
        if (await cond()) {
          return;
        }
        await this.page.waitForTimeout(150);
      }
      if (Date.now() > end) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      }
    }
  }

  /** A status bar entry holding text. */
  statusItem(text) {
    return this.page.locator('.statusbar .statusbar-item', { hasText: text }).first();
  }

  /** The count on the Explorer's activity bar entry ("1" with the title "1 unsaved file"), or ''. */
  async explorerBadge() {
    const badge = this.page.locator('.activitybar .action-item:has(.codicon-explorer-view-icon) .badge .badge-content, .activitybar .action-item[aria-label^="Explorer"] .badge-content').first();
    return (await badge.isVisible().catch(() => false)) ? (await badge.innerText()).trim() : '';
  }

  /** The text of the visible editor's lines (the output view, a settings page, a document). */
  async visibleText(selector) {
    return (await this.page.locator(selector).first().innerText().catch(() => '')).replace(/\u00a0/g, ' ');
  }

  async openChat(timeoutMs = 20000) {
    if (!(await this.chatInput.isVisible().catch(() => false))) {
      await this.palette('Chat: Open Chat');
    }
    await this.chatInput.waitFor({ state: 'visible', timeout: timeoutMs });
  }

  /** Sends a chat message. insertText, not typing: "@" opens a suggest widget that can eat keys. */
  async sendChat(text) {
    // The text must go to the chat input, never to an editor that kept the keyboard.
    for (let i = 0; ; i++) {
      await this.chatInput.click();
      if (await this.page.evaluate(() => Boolean(document.activeElement && document.activeElement.closest('.part.auxiliarybar .interactive-input-part')))) {
        break;
      }
      if (i >= 10) {
        throw new Error('the chat input does not take the keyboard');
      }
      await this.page.waitForTimeout(300);
    }
    await this.page.keyboard.insertText(text);
    await this.page.keyboard.press('Enter');
  }

  /** The text of the chat's conversation (requests and responses). */
  async chatText() {
    const text = await this.page.locator('.part.auxiliarybar .interactive-session .interactive-list').first().innerText().catch(() => '');
    return (text || '').replace(/\u00a0/g, ' '); // code blocks render spaces as no-break spaces
  }

  /** A toast notification holding text, once it shows. */
  notification(text) {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  }

  /** Every CodeLens label in the modified side of the visible diff editor. */
  async diffLensTitles() {
    return this.page.locator('.monaco-diff-editor .editor.modified .codelens-decoration a').allInnerTexts();
  }

  /** The CodeLens in the modified side of the visible diff editor whose label contains text (a link, or plain text when it runs nothing). */
  diffLens(text) {
    return this.page.locator('.monaco-diff-editor .editor.modified .codelens-decoration > a, .monaco-diff-editor .editor.modified .codelens-decoration > span', { hasText: text }).first();
  }

  /** A button of the active editor's title bar, by its accessible label. */
  titleAction(label) {
    return this.page.locator(`.editor-actions .action-label[aria-label="${label}"], .editor-actions .action-label[aria-label^="${label} ("]`).first();
  }

  async screenshot(file) {
    await this.page.screenshot({ path: file });
  }
}
