// What a scenario works with: the workbench, checks and screenshots named
// after it, the workspace, the test agent's events, and a way to send it a
// chat request. One Context per scenario; scenarios that share a
// code-server share the workbench and the workspace.

import fs from 'node:fs';
import path from 'node:path';

import { waitFor } from './report.mjs';

/** A step failed: the rest of the scenario cannot run. */
export class StepFailed extends Error {}

export class Context {
  /**
   * @param {object} o
   * @param {import('./report.mjs').Report} o.report
   * @param {import('./workbench.mjs').Workbench} o.wb
   * @param {object} o.dirs the run's folders (workspace, userData, extensions, xdg, root)
   * @param {string} o.artifacts where screenshots go
   * @param {string} o.name the scenario's name
   * @param {string} o.eventsFile the test agent's events
   * @param {object} o.server the running code-server (pgid, port)
   */
  constructor(o) {
    Object.assign(this, o);
    this.shots = 0;
    this.started = Date.now();
  }

  /** Records a check; its name is prefixed with the scenario's. */
  check(name, ok, detail) {
    return this.report.check(`${this.name}: ${name}`, ok, detail);
  }

  /** A check the rest of the scenario depends on. */
  gate(name, ok, detail) {
    if (!this.check(name, ok, detail)) {
      throw new StepFailed(name);
    }
  }

  /** Runs a step whose failure (an exception) ends the scenario. */
  async step(name, fn) {
    try {
      const v = await fn();
      this.check(name, true);
      return v;
    } catch (e) {
      if (e instanceof StepFailed) {
        throw e;
      }
      this.check(name, false, String((e && e.message) || e).split('\n')[0]);
      throw new StepFailed(name);
    }
  }

  note(text) {
    this.report.note(`${this.name}: ${text}`);
  }

  /** Saves a screenshot as <scenario>-NN-<what>.png and returns its path. */
  async shot(what) {
    const file = path.join(this.artifacts, `${this.name}-${String(++this.shots).padStart(2, '0')}-${what}.png`);
    await this.wb.screenshot(file);
    return file;
  }

  /** A path in the workspace. */
  ws(rel) {
    return path.join(this.dirs.workspace, rel);
  }

  read(rel) {
    return fs.readFileSync(this.ws(rel), 'utf8');
  }

  exists(rel) {
    return fs.existsSync(this.ws(rel));
  }

  /** The test agent's events (activated, request, tool-call, tool-result, reply, error), one object each. */
  events() {
    try {
      return fs.readFileSync(this.eventsFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  }

  /** Events since this scenario's chat request went out. */
  ownEvents() {
    return this.events().filter((e) => e.at >= this.sentAt);
  }

  /** The result the tool answered in this scenario's request (the nth call of it, 0-based). */
  toolResult(tool, nth = 0) {
    return this.ownEvents().filter((e) => e.kind === 'tool-result' && e.tool === tool)[nth];
  }

  /** Starts a new chat and sends the prompt (it must carry the scenario's script marker). */
  async chat(prompt) {
    await this.wb.newChat();
    this.sentAt = Date.now();
    await this.wb.sendChat(prompt);
  }

  /** Waits for the agent's reply (or error) to this scenario's request. */
  replied(timeoutMs = 60000) {
    return waitFor(() => this.ownEvents().find((e) => e.kind === 'reply' || e.kind === 'error'), timeoutMs, 'the agent\'s reply');
  }

  waitFor(fn, timeoutMs, what) {
    return waitFor(fn, timeoutMs, what);
  }

  /** Milliseconds since the scenario started. */
  elapsed() {
    return Date.now() - this.started;
  }
}
