// The local broker's data dir and the Kafka release that formatted it (deploy/local/kafka.ts): a dir
// of another release is moved aside before the broker starts, never opened.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { kafkaVersionIn, setAsideDataOfOtherVersion } from "../../deploy/local/kafka.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A broker home; `formatted` makes its data dir look formatted, by `marker`'s release when given. */
function home(opts: { formatted: boolean; marker?: string }) {
  const dir = mkdtempSync(join(tmpdir(), "kafka-home-"));
  roots.push(dir);
  const data = join(dir, "data");
  mkdirSync(data);
  if (opts.formatted) writeFileSync(join(data, "meta.properties"), "node.id=1\n");
  if (opts.marker !== undefined) writeFileSync(join(dir, "formatted-by"), `${opts.marker}\n`);
  const lines: string[] = [];
  return {
    dir,
    data,
    lines,
    setAside: (v: string) => setAsideDataOfOtherVersion(dir, data, v, (l) => lines.push(l)),
  };
}

describe("the local broker's data and its Kafka release", () => {
  it("keeps a dir formatted by the same release", () => {
    const h = home({ formatted: true, marker: "4.2.1" });
    h.setAside("4.2.1");
    expect(existsSync(join(h.data, "meta.properties"))).toBe(true);
    expect(h.lines).toEqual([]);
  });

  it("leaves a dir never formatted alone", () => {
    const h = home({ formatted: false });
    h.setAside("4.2.1");
    expect(existsSync(h.data)).toBe(true);
    expect(h.lines).toEqual([]);
  });

  it("moves a dir of another release aside, keeping what is in it, and says so", () => {
    const h = home({ formatted: true, marker: "4.3.1" });
    h.setAside("4.2.1");
    expect(existsSync(h.data)).toBe(false);
    expect(readFileSync(join(h.dir, "data-kafka-4.3.1", "meta.properties"), "utf8")).toBe("node.id=1\n");
    expect(h.lines).toEqual([
      `kafka: data formatted by Kafka 4.3.1 moved to ${h.data}-kafka-4.3.1; Kafka 4.2.1 starts empty`,
    ]);
  });

  it("takes a formatted dir with no marker for 4.4.0's, the release before the marker existed", () => {
    const h = home({ formatted: true });
    h.setAside("4.2.1");
    expect(existsSync(join(h.dir, "data-kafka-4.4.0", "meta.properties"))).toBe(true);
  });

  it("never overwrites a dir already set aside", () => {
    const h = home({ formatted: true, marker: "4.4.0" });
    mkdirSync(join(h.dir, "data-kafka-4.4.0"));
    writeFileSync(join(h.dir, "data-kafka-4.4.0", "older"), "x");
    h.setAside("4.2.1");
    expect(readFileSync(join(h.dir, "data-kafka-4.4.0", "older"), "utf8")).toBe("x");
    expect(h.lines[0]).toMatch(/moved to .*data-kafka-4\.4\.0-\d+;/);
  });

  it("reads the release from the kafka-server jar, not from its neighbours", () => {
    const lib = mkdtempSync(join(tmpdir(), "kafka-lib-"));
    roots.push(lib);
    for (const jar of ["kafka-server-common-9.9.9.jar", "kafka-clients-4.2.1.jar", "kafka-server-4.2.1.jar"])
      writeFileSync(join(lib, jar), "");
    expect(kafkaVersionIn(lib)).toBe("4.2.1");
    rmSync(join(lib, "kafka-server-4.2.1.jar"));
    expect(() => kafkaVersionIn(lib)).toThrow(/no kafka-server jar/);
  });
});
