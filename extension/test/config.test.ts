import { strict as assert } from "node:assert";
import { afterEach, test } from "node:test";

import { daemonSettings, readConfig } from "../src/config";
import { fake } from "./fake/vscode";

afterEach(() => {
  for (const k of Object.keys(fake.config)) {
    delete fake.config[k];
  }
});

test("the web settings go to initialize under the daemon's names", () => {
  fake.config["tether.web.allowedHosts"] = ["pkg.go.dev", "*.example.com"];
  fake.config["tether.web.allowedPrivateHosts"] = ["localhost", "127.0.0.1/32"];
  fake.config["tether.web.timeout"] = 45;
  const s = daemonSettings(readConfig(), undefined);
  assert.deepEqual(s.webAllowedHosts, ["pkg.go.dev", "*.example.com"]);
  assert.deepEqual(s.webPrivateHosts, ["localhost", "127.0.0.1/32"]);
  assert.equal(s.webTimeout, 45);
});

test("empty host lists are left out, so the daemon's defaults apply", () => {
  const s = daemonSettings(readConfig(), undefined);
  assert.equal("webAllowedHosts" in s, false);
  assert.equal("webPrivateHosts" in s, false);
  assert.equal(s.webTimeout, 30);
});
