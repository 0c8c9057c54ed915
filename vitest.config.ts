import { configDefaults, defineConfig } from "vitest/config";

// One project per test tier (the tier is in the file name); `vitest run --project unit` runs one.
// Integration and end-to-end tests share real servers, so their files run one at a time.
// Files under test/*/off-chain/ never touch the chains (whose relayer keys every other file
// shares): `npm run test:int` runs them beside the rest, on a Kafka broker of their own.
const slow = { testTimeout: 120_000, hookTimeout: 300_000, fileParallelism: false };
const INT_OFF_CHAIN = "test/integration/off-chain/**/*.int.test.ts";
const E2E_OFF_CHAIN = "test/e2e/off-chain/**/*.e2e.test.ts";

export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.unit.test.ts"] } },
      {
        test: {
          name: "int",
          include: ["test/integration/**/*.int.test.ts"],
          exclude: [...configDefaults.exclude, INT_OFF_CHAIN],
          ...slow,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.e2e.test.ts"],
          exclude: [...configDefaults.exclude, E2E_OFF_CHAIN],
          ...slow,
        },
      },
      { test: { name: "int-off-chain", include: [INT_OFF_CHAIN], ...slow } },
      { test: { name: "e2e-off-chain", include: [E2E_OFF_CHAIN], ...slow } },
      // By hand (npm run test:analytics): Spark from Maven Central takes minutes (docs/ANALYTICS.md).
      { test: { name: "analytics", include: ["test/analytics/**/*.analytics.test.ts"], ...slow } },
      // By hand (npm run test:chaos): the rolling restart's short form, out of CI while one of its
      // runs left a refund "detected" after the kill -9 pass, and its SIGTERM-only form, meant for
      // CI once that is explained (docs/RELIABILITY.md).
      { test: { name: "chaos", include: ["test/chaos/**/*.chaos.test.ts"], ...slow } },
    ],
  },
});
