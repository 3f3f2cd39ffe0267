import assert from "node:assert/strict";
import { test } from "node:test";

import { RestartPolicy } from "../src/backoff";

const opts = { initialDelayMs: 100, factor: 2, maxDelayMs: 500, maxRestarts: 5, healthyAfterMs: 10_000 };

test("delays grow exponentially up to the cap, then the policy gives up", () => {
  const p = new RestartPolicy(opts);
  const delays = Array.from({ length: 6 }, () => p.next(10));
  assert.deepEqual(delays, [100, 200, 400, 500, 500, undefined]);
});

test("a daemon that ran long enough starts a fresh count", () => {
  const p = new RestartPolicy(opts);
  p.next(10);
  p.next(10);
  assert.equal(p.next(60_000), 100);
});

test("reset forgets failures", () => {
  const p = new RestartPolicy(opts);
  for (let i = 0; i < 6; i++) {
    p.next(0);
  }
  p.reset();
  assert.equal(p.next(0), 100);
  assert.equal(p.attempts, 1);
});
