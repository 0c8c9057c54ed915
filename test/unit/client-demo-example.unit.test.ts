import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * docs/CLIENT.md's example ("The demo, line for line") is taken from deploy/local/demo-evm.ts (what
 * `npm run demo` runs), which tsc compiles and the README's "Try it" test runs: every line of the
 * example must stand in the demo, in the same order, so the example cannot drift from code that works.
 */

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

function example(doc: string): string[] {
  const section = doc.split("### The demo, line for line")[1] ?? "";
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return code.split("\n").filter((line) => line.trim() !== "");
}

/** The lines of `wanted` that are not found in `lines` in order. */
function missing(wanted: string[], lines: string[]): string[] {
  let at = 0;
  return wanted.filter((line) => {
    const found = lines.indexOf(line, at);
    if (found < 0) return true;
    at = found + 1;
    return false;
  });
}

describe("docs/CLIENT.md's demo example", () => {
  it("is a part of deploy/local/demo-evm.ts, line for line and in order", () => {
    const lines = example(read("docs/CLIENT.md"));
    expect(lines.length).toBeGreaterThan(10);
    expect(missing(lines, read("deploy/local/demo-evm.ts").split("\n"))).toEqual([]);
  });

  it("would notice a line the demo does not have, or lines out of order", () => {
    expect(missing(["a", "c"], ["a", "b", "c"])).toEqual([]);
    expect(missing(["a", "x"], ["a", "b"])).toEqual(["x"]);
    expect(missing(["b", "a"], ["a", "b"])).toEqual(["a"]);
  });
});
