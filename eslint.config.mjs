// ESLint for the VS Code extension (`npm run lint`, part of `npm test`).
// TypeScript is linted with typescript-eslint's strict and stylistic rules,
// type-checked against extension/tsconfig.json; the build and test scripts
// (.mjs) with ESLint's recommended rules. Formatting is prettier's job
// (`npm run format:check`): none of these configs sets a layout rule.
import eslint from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
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
    files: ["**/*.mjs"],
    languageOptions: {
      globals: globals.node,
    },
  },
);
