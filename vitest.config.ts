import { configDefaults, defineConfig } from "vitest/config";

// One project per test tier (the tier is in the file name); `vitest run --project unit` runs one.
// Integration and end-to-end tests share real servers, so their files run one at a time.
// The stack's chains are shared too (every file that uses them sends from the same relayer and
// funded accounts), so `npm run test:int` runs those files in one lane; beside it, on a Kafka broker
// of its own, the off-chain lane runs the files that share no chain with them: test/*/off-chain/
// touch none, test/*/own-chain/ start anvil chains of their own (deploy/local/private-chains.ts).
const slow = { testTimeout: 120_000, hookTimeout: 300_000, fileParallelism: false };
const INT_OFF_CHAIN = [
  "test/integration/off-chain/**/*.int.test.ts",
  "test/integration/own-chain/**/*.int.test.ts",
];
const E2E_OFF_CHAIN = ["test/e2e/off-chain/**/*.e2e.test.ts", "test/e2e/own-chain/**/*.e2e.test.ts"];

export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.unit.test.ts"] } },
      {
        test: {
          name: "int",
          include: ["test/integration/**/*.int.test.ts"],
          exclude: [...configDefaults.exclude, ...INT_OFF_CHAIN],
          ...slow,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.e2e.test.ts"],
          exclude: [...configDefaults.exclude, ...E2E_OFF_CHAIN],
          ...slow,
        },
      },
      { test: { name: "int-off-chain", include: INT_OFF_CHAIN, ...slow } },
      { test: { name: "e2e-off-chain", include: E2E_OFF_CHAIN, ...slow } },
      // By hand (npm run test:analytics): Spark from Maven Central takes minutes (docs/ANALYTICS.md).
      { test: { name: "analytics", include: ["test/analytics/**/*.analytics.test.ts"], ...slow } },
    ],
  },
});
