// ESLint for the VS Code extension (`npm run lint`, part of `npm test`).
// TypeScript is linted with typescript-eslint's strict and stylistic rules,
// type-checked against extension/tsconfig.json; the build and test scripts
// (.mjs) with ESLint's recommended rules. Formatting is prettier's job
// (`npm run format:check`): none of these configs sets a layout rule.
import eslint from "@eslint/js";
import globals from "globals";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  {
    ignores: ["node_modules/", "dist/", "out/", "bin/", "e2e/", "internal/", "docs/", "**/*.js"],
  },
  eslint.configs.recommended,
  {
    files: ["extension/**/*.ts"],
    extends: [tseslint.configs.strictTypeChecked, tseslint.configs.stylisticTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A number reads as itself in a message; the rule is kept for what
      // does not (an object's "[object Object]", undefined, a Uri).
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      // `(e) => emitter.fire(e)` as a listener is plain; the rule still
      // catches a void result used as a value (`const x = f()`).
      "@typescript-eslint/no-confusing-void-expression": ["error", { ignoreArrowShorthand: true }],
      // node:test's test() returns a promise that the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "describe", "it", "suite"] },
          ],
        },
      ],
    },
  },
  {
    // At run time `vscode` is the stand-in module (test/fake): the values
    // typed with VS Code's classes are the fake's instances, and its enums
    // are held to VS Code's values by fake/vscode.ts's Checked.
    files: ["extension/test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-class-instance-assignment": "off",
      "@typescript-eslint/no-unsafe-enum-comparison": "off",
      // A stand-in for an async API (a model's sendRequest, a tool's
      // invoke) is async to answer as the API does, with nothing to wait for.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // The tests read what the extension sent, registered or answered (a
    // request's params, a tree item, a handler's result) in the shape the
    // test expects, and a wrong expectation fails the test, which is the
    // check there; a `!` on what a test just looked up fails it the same
    // way. The stand-in module (fake/) keeps these rules.
    files: ["extension/test/**/*.ts"],
    ignores: ["extension/test/fake/**"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    files: ["**/*.mjs"],
    languageOptions: {
      globals: globals.node,
    },
  },
);
