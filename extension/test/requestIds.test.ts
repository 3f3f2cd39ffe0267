import assert from "node:assert/strict";
import { test } from "node:test";

import { RequestIds } from "../src/requestIds";

function counter() {
  let n = 0;
  return () => `id-${++n}`;
}

test("one token object is one request", () => {
  const ids = new RequestIds(() => 0, 1000, counter());
  const turn = {};
  const a = ids.begin(turn);
  ids.end(turn);
  const b = ids.begin(turn);
  ids.end(turn);
  assert.equal(a, b);
});

test("different token objects without a session are different requests", () => {
  const ids = new RequestIds(() => 0, 1000, counter());
  assert.notEqual(ids.begin({}), ids.begin({}));
});

test("calls without a token each get their own id", () => {
  const ids = new RequestIds(() => 0, 1000, counter());
  assert.deepEqual([ids.begin(undefined), ids.begin(undefined), ids.begin(null)], ["id-1", "id-2", "id-3"]);
});

test("tokens rebuilt for every call share the id while the session keeps calling", () => {
  let now = 0;
  const ids = new RequestIds(() => now, 1000, counter());
  // VS Code sends a fresh copy of the token with every call of one turn.
  const call = () => ({ sessionId: "chat-1", sessionResource: { scheme: "vscode-chat-session", path: "/1" } });
  const t1 = call();
  const first = ids.begin(t1);
  now = 5000; // a long call: the gap counts from its end
  ids.end(t1);
  now = 5900;
  const t2 = call();
  assert.equal(ids.begin(t2), first);
  ids.end(t2);
  now = 5900 + 1001; // the user took longer than a turn gap to answer
  assert.notEqual(ids.begin(call()), first);
});

test("a call running in the session keeps later calls in its turn", () => {
  let now = 0;
  const ids = new RequestIds(() => now, 1000, counter());
  const a = ids.begin({ sessionId: "s" });
  now = 10_000; // still running
  assert.equal(ids.begin({ sessionId: "s" }), a);
});

test("sessions do not share ids", () => {
  const ids = new RequestIds(() => 0, 1000, counter());
  assert.notEqual(ids.begin({ sessionId: "a" }), ids.begin({ sessionId: "b" }));
});
