import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { ask, askAnswer, askTitle, freeTextLabel } from "../src/ask";
import { FakeQuickPick, fake } from "./fake/vscode";
import { rpcToken } from "./stubDaemon";

beforeEach(() => fake.reset());

const question = { question: "Which database?", options: ["Postgres", "SQLite"], allowFreeText: true };

test("askAnswer", () => {
  const cases: [Parameters<typeof askAnswer>, ReturnType<typeof askAnswer>][] = [
    [[{ label: "SQLite" }, "sq"], { answer: "SQLite" }],
    [[{ label: freeTextLabel, freeText: true }, "  DuckDB "], { answer: "DuckDB" }],
    [[{ label: freeTextLabel, freeText: true }, ""], "needs-text"],
    [[undefined, "anything"], { cancelled: true }],
  ];
  for (const [args, want] of cases) {
    assert.deepEqual(askAnswer(...args), want);
  }
});

test("the options are offered with a free-text entry when allowed", async () => {
  fake.onQuickPick = (qp) => qp.acceptWith("", qp.items[1]);
  assert.deepEqual(await ask(question), { answer: "SQLite" });
  const qp = fake.quickPicks[0];
  assert.deepEqual(
    qp.items.map((i) => i.label),
    ["Postgres", "SQLite", freeTextLabel],
  );
  assert.equal(qp.title, "Which database?", "the question is the title, which stays while the user types");
  assert.doesNotMatch(qp.placeholder!, /Which database/);
  assert.equal(qp.ignoreFocusOut, true);
});

test("a long or multi-line question becomes one title line", () => {
  assert.equal(askTitle("Which\n  database   should we use?"), "Which database should we use?");
  assert.equal(askTitle("  "), "Tether asks");
});

test("no free-text entry when the question does not allow one", async () => {
  fake.onQuickPick = (qp) => qp.acceptWith("", qp.items[0]);
  await ask({ ...question, allowFreeText: false });
  assert.deepEqual(
    fake.quickPicks[0].items.map((i) => i.label),
    ["Postgres", "SQLite"],
  );
});

test("text typed into the box that matches no option is the answer", async () => {
  fake.onQuickPick = (qp) => qp.acceptWith("DuckDB, in memory", undefined);
  assert.deepEqual(await ask(question), { answer: "DuckDB, in memory" });
});

test("the free-text entry with an empty box asks in an input box", async () => {
  fake.onQuickPick = (qp: FakeQuickPick<any>) => qp.acceptWith("", qp.items[2]);
  fake.onInputBox = () => "  MySQL  ";
  assert.deepEqual(await ask(question), { answer: "MySQL" });
  fake.onInputBox = () => undefined;
  assert.deepEqual(await ask(question), { cancelled: true });
});

test("dismissing the quick pick cancels", async () => {
  fake.onQuickPick = (qp) => qp.hide();
  assert.deepEqual(await ask(question), { cancelled: true });
});

test("the daemon cancelling the question closes the quick pick", async () => {
  const t = rpcToken();
  fake.onQuickPick = () => t.cancel();
  assert.deepEqual(await ask(question, t.token as any), { cancelled: true });
  assert.equal(fake.quickPicks[0].visible, false);
});

test("a question tether mcp relays says which client asks", async () => {
  fake.onQuickPick = (qp) => qp.acceptWith("", qp.items[0]);
  assert.deepEqual(await ask({ ...question, from: "Claude Code" }), { answer: "Postgres" });
  assert.equal(fake.quickPicks[0].title, "Which database? (asked by Claude Code through tether mcp)");
});
