import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger, logSink } from "../../src/logging.ts";

// Where the logs go (LOG_FORMAT): a pipe gets JSON lines, a terminal keeps the CLI's own lines and
// the JSON lines go to the file, unless the format is named.
describe("logSink", () => {
  const file = "/tmp/x/service.log";
  it("auto: JSON to stdout when piped, the file on a terminal, readable on a terminal without a file", () => {
    expect(logSink({ format: "auto", file, tty: false })).toBe("json");
    expect(logSink({ format: "auto", file, tty: true })).toBe("file");
    expect(logSink({ format: "auto", tty: true })).toBe("pretty");
    expect(logSink({ file, tty: true })).toBe("file");
  });
  it("json and pretty go to stdout whatever stdout is", () => {
    expect(logSink({ format: "json", file, tty: true })).toBe("json");
    expect(logSink({ format: "pretty", file, tty: false })).toBe("pretty");
  });
});

describe("createLogger on a terminal", () => {
  it("appends JSON lines with the role to the file, at the level asked", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "logs-")), "logs", "service.log");
    const log = createLogger("info", "service", { format: "auto", file, tty: true }).child({
      role: "gateway",
    });
    log.debug("not at info");
    log.info({ port: 8080 }, "listening");
    log.warn("slow");
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.msg, l.role])).toEqual([
      [30, "listening", "gateway"],
      [40, "slow", "gateway"],
    ]);
    expect(lines[0].port).toBe(8080);
  });
});
