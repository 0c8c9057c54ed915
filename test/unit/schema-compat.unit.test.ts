import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import avsc from "avsc";
import { describe, expect, it } from "vitest";
import { formatFingerprint, parsingCanonicalForm, rabinFingerprint64 } from "../../src/kafka/avro.ts";

/**
 * Backward compatibility of every schema: a reader with the new schema must read data written with
 * any older one (session.events is kept forever, so "older" means every version ever committed).
 * Versions come from git history and from schemas/history/.
 */

const root = fileURLToPath(new URL("../../", import.meta.url));
const schemaFiles = readdirSync(join(root, "schemas"))
  .filter((f) => f.endsWith(".avsc"))
  .sort();

function git(...args: string[]): string | null {
  try {
    return execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return null;
  }
}
const inGit = git("rev-parse", "--is-inside-work-tree")?.trim() === "true";

/** Committed versions of a file, newest first (one per commit that touched it). */
function committedVersions(path: string): Array<{ sha: string; text: string }> {
  const shas = (git("log", "--format=%H", "--", path) ?? "").split("\n").filter(Boolean);
  return shas.flatMap((sha) => {
    const text = git("show", `${sha}:${path}`);
    return text === null ? [] : [{ sha: sha.slice(0, 8), text }];
  });
}

function historyVersions(fullName: string): Array<{ file: string; text: string }> {
  const dir = join(root, "schemas", "history");
  let files: string[];
  try {
    files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".avsc"));
  } catch {
    return [];
  }
  return files
    .map((f) => ({ file: `schemas/history/${f}`, text: readFileSync(join(dir, f), "utf8") }))
    .filter((v) => avsc.Type.forSchema(JSON.parse(v.text)).name === fullName);
}

const typeOf = (text: string) => avsc.Type.forSchema(JSON.parse(text));
const fingerprintOf = (text: string) => rabinFingerprint64(parsingCanonicalForm(typeOf(text)));

/** Throws when `reader` cannot read data written with `writer`. */
const assertReads = (reader: string, writer: string) => typeOf(reader).createResolver(typeOf(writer));

describe("the check itself", () => {
  it("rejects a field added without a default and a union branch removed", () => {
    const v1 = { type: "record", name: "R", fields: [{ name: "u", type: ["null", "string"] }] };
    const noDefault = { ...v1, fields: [...v1.fields, { name: "x", type: "int" }] };
    const narrower = { ...v1, fields: [{ name: "u", type: ["null"] }] };
    expect(() => assertReads(JSON.stringify(noDefault), JSON.stringify(v1))).toThrow();
    expect(() => assertReads(JSON.stringify(narrower), JSON.stringify(v1))).toThrow();
    const withDefault = { ...v1, fields: [...v1.fields, { name: "x", type: "int", default: 0 }] };
    expect(() => assertReads(JSON.stringify(withDefault), JSON.stringify(v1))).not.toThrow();
  });
});

describe.skipIf(!inGit)("schemas stay backward compatible", () => {
  it("no schema file that was ever committed has been deleted", () => {
    const ever = new Set(
      (git("log", "--format=", "--name-only", "--diff-filter=A", "--", "schemas/*.avsc") ?? "")
        .split("\n")
        .filter((f) => /^schemas\/[^/]+\.avsc$/.test(f)),
    );
    const now = new Set(schemaFiles.map((f) => `schemas/${f}`));
    expect([...ever].filter((f) => !now.has(f))).toEqual([]);
  });

  describe.each(schemaFiles)("%s", (file) => {
    const path = `schemas/${file}`;
    const working = readFileSync(join(root, path), "utf8");
    const committed = committedVersions(path);

    it("the working-tree version reads every committed and archived version", () => {
      const old = [
        ...committed.map((v) => ({ from: `commit ${v.sha}`, text: v.text })),
        ...historyVersions(typeOf(working).name ?? "").map((v) => ({ from: v.file, text: v.text })),
      ];
      for (const v of old) {
        expect(
          () => assertReads(working, v.text),
          `${path} cannot read data written with ${v.from}`,
        ).not.toThrow();
      }
    });

    it("keeps the writer schema of every committed version findable by its fingerprint", () => {
      const name = typeOf(working).name ?? "";
      const known = new Set([working, ...historyVersions(name).map((v) => v.text)].map(fingerprintOf));
      const record = name.slice(name.lastIndexOf(".") + 1);
      const missing = committed
        .filter((v) => !known.has(fingerprintOf(v.text)))
        .map(
          (v) =>
            `schemas/history/${record}/${formatFingerprint(fingerprintOf(v.text))}.avsc (from commit ${v.sha})`,
        );
      expect(missing, "records written with these versions could not be decoded: archive them").toEqual([]);
    });

    it("each committed version reads the one before it", () => {
      for (let i = 0; i + 1 < committed.length; i++) {
        const [newer, older] = [committed[i], committed[i + 1]];
        if (!newer || !older) continue;
        expect(
          () => assertReads(newer.text, older.text),
          `${path} at ${newer.sha} cannot read data written with ${older.sha}`,
        ).not.toThrow();
      }
    });
  });
});
