import { configDefaults, defineConfig } from "vitest/config";

// One project per test tier (the tier is in the file name); `vitest run --project unit` runs one.
// Integration and end-to-end tests share real servers, so their files run one at a time.
// Integration files under test/integration/off-chain/ never touch the chains (whose relayer keys
// every other file shares): `npm run test:int` runs them beside the rest, on a broker of their own.
const slow = { testTimeout: 120_000, hookTimeout: 300_000, fileParallelism: false };
const OFF_CHAIN = "test/integration/off-chain/**/*.int.test.ts";

export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.unit.test.ts"] } },
      {
        test: {
          name: "int",
          include: ["test/integration/**/*.int.test.ts"],
          exclude: [...configDefaults.exclude, OFF_CHAIN],
          ...slow,
        },
      },
      { test: { name: "int-off-chain", include: [OFF_CHAIN], ...slow } },
      { test: { name: "e2e", include: ["test/e2e/**/*.e2e.test.ts"], ...slow } },
    ],
  },
});
