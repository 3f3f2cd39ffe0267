/** How the daemon is restarted after it dies. */
export interface RestartOptions {
  /** Delay before the first restart. */
  initialDelayMs: number;
  /** Each further restart waits this many times longer... */
  factor: number;
  /** ...up to this. */
  maxDelayMs: number;
  /** Restarts in a row before giving up and asking the user. */
  maxRestarts: number;
  /** A daemon that ran this long was healthy: its death starts a fresh count. */
  healthyAfterMs: number;
}

export const defaultRestartOptions: RestartOptions = {
  initialDelayMs: 500,
  factor: 2,
  maxDelayMs: 30_000,
  maxRestarts: 5,
  healthyAfterMs: 60_000,
};

/**
 * RestartPolicy decides, each time the daemon dies, whether to start it
 * again and after how long: exponential backoff, capped, so a daemon that
 * crashes at start does not spin, and one that crashes once a day is
 * always brought back.
 */
export class RestartPolicy {
  private failures = 0;

  constructor(private readonly opts: RestartOptions = defaultRestartOptions) {}

  /**
   * Called when the daemon died after running for uptimeMs. Returns the
   * delay before the next start, or undefined to give up.
   */
  next(uptimeMs: number): number | undefined {
    if (uptimeMs >= this.opts.healthyAfterMs) {
      this.failures = 0;
    }
    this.failures++;
    if (this.failures > this.opts.maxRestarts) {
      return undefined;
    }
    const delay = this.opts.initialDelayMs * Math.pow(this.opts.factor, this.failures - 1);
    return Math.min(delay, this.opts.maxDelayMs);
  }

  /** Forget past failures: the user asked for a restart. */
  reset(): void {
    this.failures = 0;
  }

  /** Restarts in a row before giving up. */
  get limit(): number {
    return this.opts.maxRestarts;
  }

  /** Restarts attempted since the last healthy run or reset. */
  get attempts(): number {
    return this.failures;
  }
}
