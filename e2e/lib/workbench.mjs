// Driving VS Code's workbench in the browser: the command palette, the chat
// panel, notifications, the diff editor. Every wait is for a condition, with
// a bound.

import { createRequire } from 'node:module';
import path from 'node:path';

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
    this.chatInput = page.locator('.interactive-input-part .interactive-input-editor').first();
  }

  async ready(timeoutMs) {
    await this.page.waitForSelector('.monaco-workbench .part.editor', { timeout: timeoutMs });
  }

  /** Runs a command by its palette label: F1, type, wait for the entry, Enter. */
  async palette(label, timeoutMs = 15000) {
    await this.page.keyboard.press('F1');
    const box = this.page.locator('.quick-input-widget');
    await box.waitFor({ state: 'visible', timeout: timeoutMs });
    await this.page.keyboard.type(label);
    await this.page.locator('.quick-input-list .monaco-list-row').filter({ hasText: label }).first().waitFor({ timeout: timeoutMs });
    await this.page.keyboard.press('Enter');
    await box.waitFor({ state: 'hidden', timeout: timeoutMs });
  }

  async openChat(timeoutMs = 20000) {
    if (!(await this.chatInput.isVisible().catch(() => false))) {
      await this.palette('Chat: Open Chat');
    }
    await this.chatInput.waitFor({ state: 'visible', timeout: timeoutMs });
  }

  /** Sends a chat message. insertText, not typing: "@" opens a suggest widget that can eat keys. */
  async sendChat(text) {
    await this.chatInput.click();
    await this.page.keyboard.insertText(text);
    await this.page.keyboard.press('Enter');
  }

  /** The text of the chat's conversation (requests and responses). */
  async chatText() {
    const text = await this.page.locator('.interactive-session .interactive-list').first().innerText().catch(() => '');
    return (text || '').replace(/\u00a0/g, ' '); // code blocks render spaces as no-break spaces
  }

  /** A toast notification holding text, once it shows. */
  notification(text) {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  }

  /** The CodeLens in the modified side of the visible diff editor whose label contains text. */
  diffLens(text) {
    return this.page.locator('.monaco-diff-editor .editor.modified .codelens-decoration a', { hasText: text }).first();
  }

  /** A button of the active editor's title bar, by its accessible label. */
  titleAction(label) {
    return this.page.locator(`.editor-actions .action-label[aria-label="${label}"], .editor-actions .action-label[aria-label^="${label} ("]`).first();
  }

  async screenshot(file) {
    await this.page.screenshot({ path: file });
  }
}
