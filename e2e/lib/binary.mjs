// The daemon binary the installed extension ships, for scenarios that run
// it directly (tether mcp, tether doctor).

import fs from 'node:fs';
import path from 'node:path';

/** The tether binary of the installed extension: the one that ships. */
export function tetherBin(dirs) {
  for (const e of fs.readdirSync(dirs.extensions)) {
    const p = path.join(dirs.extensions, e, 'bin', `${process.platform}-${process.arch}`, 'tether');
    if (fs.existsSync(p)) {
      return p;
    }
  }
  throw new Error('no tether binary among the installed extensions');
}
