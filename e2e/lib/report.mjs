// Checks, timings and the summary a run prints and saves. A failed check
// does not stop the run: later steps still say what they saw.

const started = Date.now();

export class Report {
  constructor() {
    this.checks = [];
    this.timings = {};
    this.notes = [];
  }

  /** Records a check and prints one line for it; returns whether it passed. */
  check(name, ok, detail) {
    const entry = { name, ok: Boolean(ok), ms: Date.now() - started };
    if (detail !== undefined) {
      entry.detail = detail;
    }
    this.checks.push(entry);
    const shown = detail === undefined ? '' : ` — ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`;
    console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${shown.length > 400 ? shown.slice(0, 400) + '…' : shown}`);
    return entry.ok;
  }

  /** Notes something seen along the way that is not a pass or fail. */
  note(text) {
    this.notes.push(text);
    console.log(`note: ${text}`);
  }

  /** Stores how long a phase took, in ms since the run began or since `since`. */
  mark(name, since = started) {
    this.timings[name] = Date.now() - since;
  }

  get failed() {
    return this.checks.filter((c) => !c.ok);
  }

  /** The exit code: 0 all passed, 1 a check failed, 2 the harness broke. */
  exitCode(harnessError) {
    if (harnessError) {
      return 2;
    }
    return this.failed.length > 0 || this.checks.length === 0 ? 1 : 0;
  }

  summary(harnessError) {
    this.timings.total = Date.now() - started;
    return {
      exitCode: this.exitCode(harnessError),
      harnessError: harnessError ? String(harnessError.stack || harnessError) : undefined,
      checks: this.checks,
      notes: this.notes,
      timingsMs: this.timings,
    };
  }

  print(harnessError) {
    const s = this.summary(harnessError);
    console.log('\n=== e2e summary');
    for (const c of this.checks) {
      console.log(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}`);
    }
    if (harnessError) {
      console.log(`HARNESS ERROR  ${String(harnessError.message || harnessError)}`);
    }
    console.log(`${this.checks.length - this.failed.length} passed, ${this.failed.length} failed`);
    console.log('timings (s): ' + Object.entries(s.timingsMs).map(([k, v]) => `${k}=${(v / 1000).toFixed(1)}`).join(' '));
    return s;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls fn until it returns something truthy; throws after timeoutMs naming what it waited for. */
export async function waitFor(fn, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) {
      return v;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(150);
  }
}
