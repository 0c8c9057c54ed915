import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ChainMovedError } from "../../src/chains/evm/ingest/transfers.ts";
import { ReorgTooDeepError } from "../../src/chains/reorg-too-deep.ts";
import { BaseError, isRetryable, isTerminal, TerminalError } from "../../src/support/errors.ts";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );

/** Every `class X extends Y` of src/, as X -> { parent Y, file, its literal `code` if it has one }. */
function classes() {
  const found = new Map<string, { parent: string; file: string; code: string | null }>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(
      /^export (?:abstract )?class (\w+)(?:<[^>]*>)? extends (\w+)[^{]*\{([\s\S]*?)^\}/gm,
    )) {
      const code = /readonly code(?:: \w+)? = "([^"]*)"/.exec(m[3] as string)?.[1] ?? null;
      found.set(m[1] as string, { parent: m[2] as string, file: relative(SRC, file), code });
    }
  }
  return found;
}

describe("the error model", () => {
  it("writes details under the short message and keeps the cause", () => {
    const cause = new Error("socket hang up");
    const err = new ChainMovedError("block 7 moved", { details: ["chain 31337", "getLogs 1..7"], cause });
    expect(err.message).toBe("block 7 moved\n  chain 31337\n  getLogs 1..7");
    expect([err.shortMessage, err.code, err.cause, err.terminal, err.name]).toEqual([
      "block 7 moved",
      "chain_moved",
      cause,
      false,
      "ChainMovedError",
    ]);
    expect(err).toBeInstanceOf(BaseError);
    expect(err).toBeInstanceOf(Error);
  });

  it("calls only errors that say so retryable, and only errors that say so terminal", () => {
    const retryable = new ChainMovedError("moved");
    const terminal = new ReorgTooDeepError("too deep");
    const unknown = new Error("who knows");
    expect([isRetryable(retryable), isRetryable(terminal), isRetryable(unknown)]).toEqual([
      true,
      false,
      false,
    ]);
    expect([isTerminal(retryable), isTerminal(terminal), isTerminal(unknown)]).toEqual([
      false,
      true,
      true && false,
    ]);
    expect(new TerminalError("bad_signature", "bad").terminal).toBe(true);
  });

  it("every error class in src/ extends BaseError, with a snake_case code", () => {
    const all = classes();
    const isErrorClass = (name: string): boolean => {
      const parent = all.get(name)?.parent;
      return parent !== undefined && (/Error$/.test(parent) || isErrorClass(parent));
    };
    const reachesBase = (name: string): boolean => {
      const parent = all.get(name)?.parent;
      return parent === "BaseError" || (parent !== undefined && reachesBase(parent));
    };
    const errors = [...all.keys()].filter((name) => name !== "BaseError" && isErrorClass(name));
    expect(errors.length).toBeGreaterThan(8);
    expect(
      errors.filter((name) => !reachesBase(name)).map((name) => `${all.get(name)?.file}: ${name}`),
    ).toEqual([]);
    const codes = errors.flatMap((name) => all.get(name)?.code ?? []);
    expect(codes.filter((code) => !/^[a-z]+(_[a-z]+)*$/.test(code))).toEqual([]);
  });
});
