// Where the daemon and ripgrep binaries are. Pure functions over an
// `exists` check, so tests can describe any layout.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export type Exists = (p: string) => boolean;

const fileExists: Exists = (p) => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/** The folder name a platform's binaries live in: linux-x64, darwin-arm64, win32-x64. */
export function platformDir(platform: string = process.platform, arch: string = process.arch): string {
  return `${platform}-${arch}`;
}

function exe(name: string, platform: string): string {
  return platform === "win32" ? `${name}.exe` : name;
}

/** The daemon shipped in the .vsix for this platform. */
export function bundledDaemon(extensionPath: string, platform = process.platform, arch = process.arch): string {
  return path.join(extensionPath, "bin", platformDir(platform, arch), exe("tether", platform));
}

/**
 * The daemon to run: tether.path when set (~ expands to the home folder;
 * a relative path is taken from the first workspace folder), else the
 * bundled one. The result may not exist; the caller reports that.
 */
export function daemonPath(configured: string, extensionPath: string, workspaceRoot: string | undefined): string {
  if (!configured) {
    return bundledDaemon(extensionPath);
  }
  let p = configured;
  if (p === "~" || p.startsWith("~/") || p.startsWith("~\\")) {
    p = path.join(os.homedir(), p.slice(1));
  }
  if (!path.isAbsolute(p) && workspaceRoot) {
    p = path.join(workspaceRoot, p);
  }
  return p;
}

/**
 * The places VS Code keeps its own ripgrep, in the order they are tried:
 * plain installs, Electron builds that unpack it beside the asar archive,
 * and builds (code-server, remote servers) that ship the universal package.
 */
export function ripgrepCandidates(appRoot: string, platform = process.platform, arch = process.arch): string[] {
  const rg = exe("rg", platform);
  return [
    path.join(appRoot, "node_modules", "@vscode", "ripgrep", "bin", rg),
    path.join(appRoot, "node_modules.asar.unpacked", "@vscode", "ripgrep", "bin", rg),
    path.join(appRoot, "node_modules", "@vscode", "ripgrep-universal", "bin", platformDir(platform, arch), rg),
    path.join(
      appRoot,
      "node_modules.asar.unpacked",
      "@vscode",
      "ripgrep-universal",
      "bin",
      platformDir(platform, arch),
      rg,
    ),
  ];
}

/** VS Code's ripgrep, or undefined (the daemon then looks on PATH). */
export function findRipgrep(
  appRoot: string | undefined,
  exists: Exists = fileExists,
  platform = process.platform,
  arch = process.arch,
): string | undefined {
  if (!appRoot) {
    return undefined;
  }
  return ripgrepCandidates(appRoot, platform, arch).find((p) => exists(p));
}

/**
 * Makes the bundled daemon executable if unpacking the .vsix lost its mode
 * bits; says whether it is executable now.
 */
export function ensureExecutable(p: string, platform = process.platform): boolean {
  if (platform === "win32") {
    return true;
  }
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    try {
      fs.chmodSync(p, 0o755);
      return true;
    } catch {
      return false;
    }
  }
}

export { fileExists };
