import { defineConfig } from "vitest/config";

// One project per test tier (the tier is in the file name); `vitest run --project unit` runs one.
// Integration and end-to-end tests share real servers, so their files run one at a time.
const slow = { testTimeout: 120_000, hookTimeout: 300_000, fileParallelism: false };

export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.unit.test.ts"] } },
      { test: { name: "int", include: ["test/integration/**/*.int.test.ts"], ...slow } },
      { test: { name: "e2e", include: ["test/e2e/**/*.e2e.test.ts"], ...slow } },
    ],
  },
});
