// The rule that tells one chat turn from the next is the daemon's
// (internal/tool/turns_test.go tests it: a session's calls share a request
// while they keep coming, the gap counts from the end of a call, a running
// call holds the turn, sessions do not share requests). Here: what the
// extension asks it, and what it decides alone.

import assert from "node:assert/strict";
import { test } from "node:test";

import { RequestIds } from "../src/requestIds";

function counter() {
  let n = 0;
  return () => `id-${++n}`;
}

/** A daemon stand-in for requests/turn: records the sessions asked about. */
function daemonTurns(answer = (session: string) => `turn of ${session}`) {
  const asked: string[] = [];
  return {
    asked,
    turn: async (session: string) => {
      asked.push(session);
      return answer(session);
    },
  };
}

test("one token object is one request", async () => {
  const ids = new RequestIds(counter());
  const d = daemonTurns();
  const turn = {};
  const a = await ids.of(turn, d.turn);
  const b = await ids.of(turn, d.turn);
  assert.equal(a, b);
  const session = { sessionId: "s" };
  assert.equal(await ids.of(session, d.turn), await ids.of(session, d.turn));
  assert.deepEqual(d.asked, ["session:s"], "a token seen before is not asked about again");
});

test("different token objects without a session are different requests", async () => {
  const ids = new RequestIds(counter());
  const d = daemonTurns();
  assert.notEqual(await ids.of({}, d.turn), await ids.of({}, d.turn));
  assert.deepEqual(d.asked, [], "no session, nothing to ask");
});

test("calls without a token each get their own id", async () => {
  const ids = new RequestIds(counter());
  const d = daemonTurns();
  assert.deepEqual(
    [await ids.of(undefined, d.turn), await ids.of(undefined, d.turn), await ids.of(null, d.turn)],
    ["id-1", "id-2", "id-3"],
  );
  assert.deepEqual(d.asked, []);
});

test("tokens rebuilt for every call ask the daemon by their session, whose answer is the request", async () => {
  const ids = new RequestIds(counter());
  const d = daemonTurns();
  // VS Code sends a fresh copy of the token with every call of one turn.
  const call = () => ({ sessionId: "chat-1", sessionResource: { scheme: "vscode-chat-session", path: "/1" } });
  const first = await ids.of(call(), d.turn);
  const second = await ids.of(call(), d.turn);
  assert.equal(first, 'turn of resource:{"scheme":"vscode-chat-session","path":"/1"}');
  assert.equal(second, first);
  assert.equal(d.asked.length, 2, "each copy is asked about: only the daemon knows whether the turn went on");
  assert.equal(d.asked[0], d.asked[1], "copies of one session's token have one key");
  assert.equal(
    await ids.of({ sessionId: "chat-1" }, d.turn),
    "turn of session:chat-1",
    "a token with only a session id",
  );
});

test("sessions are asked about by different keys", async () => {
  const ids = new RequestIds(counter());
  const d = daemonTurns();
  await ids.of({ sessionId: "a" }, d.turn);
  await ids.of({ sessionId: "b" }, d.turn);
  await ids.of({ sessionResource: { path: "/a" } }, d.turn);
  assert.equal(new Set(d.asked).size, 3);
});

test("when the daemon cannot say, the call is a request of its own", async () => {
  const ids = new RequestIds(counter());
  const failing = async () => {
    throw new Error("method not found");
  };
  assert.equal(await ids.of({ sessionId: "s" }, failing), "id-1");
  assert.equal(await ids.of({ sessionId: "s" }, failing), "id-2");
});
