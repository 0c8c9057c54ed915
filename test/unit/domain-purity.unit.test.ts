import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The session core is a pure decider: time, ids and chain facts arrive on commands. This test keeps it so
 * by reading the syntax tree of every file under src/domain (comments and strings cannot trip it, and
 * `new Date(ms)` is told apart from `new Date()`), and of every module outside src/domain that those
 * files reach through relative imports. Type-only imports count too: the core should not even name the
 * adapters' types.
 */

const DOMAIN = fileURLToPath(new URL("../../src/domain", import.meta.url));

/** Adapters' libraries: none of them belongs in the core. */
const ADAPTER_MODULE = /^(kafkajs|fastify|fastify-.*|@fastify\/.*|cassandra-driver)(\/.*)?$/;
/** viem is allowed for its pure helpers (hashing, encoding, addresses, typed data) and chain constants. */
const VIEM_PURE_ENTRIES = new Set(["viem", "viem/utils", "viem/chains"]);
/** Clients and transports: each one is a network connection waiting to happen. */
const VIEM_IO = /^(create\w*Client|http|webSocket|fallback|custom|ipc)$/;

/** What a file does that a pure core must not, and the relative modules it imports. */
function scan(source: string, fileName = "file.ts"): { found: string[]; localImports: string[] } {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const localImports: string[] = [];
  const at = (node: ts.Node) => `${fileName}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;

  const checkModule = (specifier: string, node: ts.Node, names: string[] | "*") => {
    if (specifier.startsWith(".")) localImports.push(specifier);
    else if (isBuiltin(specifier)) found.push(`${at(node)} imports the Node built-in "${specifier}"`);
    else if (ADAPTER_MODULE.test(specifier))
      found.push(`${at(node)} imports the adapter library "${specifier}"`);
    else if (specifier === "viem" || specifier.startsWith("viem/")) {
      if (!VIEM_PURE_ENTRIES.has(specifier))
        found.push(`${at(node)} imports "${specifier}" (not a pure viem entry)`);
      else if (names === "*")
        found.push(`${at(node)} imports all of "${specifier}", clients and transports included`);
      else
        for (const n of names.filter((n) => VIEM_IO.test(n))) found.push(`${at(node)} imports viem's ${n}`);
    }
  };

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const bindings = node.importClause?.namedBindings;
      const names =
        bindings && ts.isNamespaceImport(bindings)
          ? "*"
          : [
              ...(node.importClause?.name ? ["default"] : []),
              ...(bindings && ts.isNamedImports(bindings)
                ? bindings.elements.map((e) => (e.propertyName ?? e.name).text)
                : []),
            ];
      checkModule(node.moduleSpecifier.text, node, names);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const names =
        clause && ts.isNamedExports(clause)
          ? clause.elements.map((e) => (e.propertyName ?? e.name).text)
          : "*";
      checkModule(node.moduleSpecifier.text, node, names);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      checkModule(node.moduleReference.expression.text, node, "*");
    } else if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      const callee = node.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require");
      if (loads && first && ts.isStringLiteralLike(first)) checkModule(first.text, node, "*");
      if (ts.isIdentifier(callee) && callee.text === "Date")
        found.push(`${at(node)} reads the clock: Date()`);
    } else if (ts.isNewExpression(node)) {
      const noArguments = (node.arguments?.length ?? 0) === 0;
      if (ts.isIdentifier(node.expression) && node.expression.text === "Date" && noArguments) {
        found.push(`${at(node)} reads the clock: new Date()`);
      }
    } else if (ts.isPropertyAccessExpression(node)) {
      const owner = ts.isIdentifier(node.expression) ? node.expression.text : "";
      const name = node.name.text;
      const read = `${owner}.${name}`;
      if (read === "Date.now" || read === "performance.now")
        found.push(`${at(node)} reads the clock: ${read}`);
      else if (read === "Math.random") found.push(`${at(node)} draws randomness: ${read}`);
      else if (name === "randomUUID" || name === "getRandomValues")
        found.push(`${at(node)} draws randomness: ${read}`);
      else if (owner === "process" || name === "process")
        found.push(`${at(node)} reads the process: ${read}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { found, localImports };
}

const impurities = (source: string, fileName?: string) => scan(source, fileName).found;

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * A domain file's findings plus those of every module outside src/domain that it reaches through
 * relative imports: a pure file that imports an impure helper is not pure.
 */
function impuritiesReachableFrom(path: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const queue = [path];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (seen.has(next) || !existsSync(next)) continue;
    seen.add(next);
    const name = relative(ROOT, next).split(sep).join("/");
    const result = scan(readFileSync(next, "utf8"), name);
    found.push(
      ...result.found.map((f) => (next === path ? f : `${f} (reached from ${relative(ROOT, path)})`)),
    );
    for (const spec of result.localImports) {
      const target = resolve(dirname(next), spec.replace(/\.js$/, ".ts"));
      if (next === path || !target.startsWith(DOMAIN + sep)) queue.push(target);
    }
  }
  return found;
}

const domainFiles = (readdirSync(DOMAIN, { recursive: true }) as string[])
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.split("\\").join("/"))
  .sort();

describe("the domain core is pure", () => {
  it("scans every TypeScript file under src/domain", () => {
    expect(domainFiles).toEqual(expect.arrayContaining(["decide.ts", "evolve.ts", "view.ts", "types.ts"]));
  });

  it.each(domainFiles)("src/domain/%s does no I/O, reads no clock and draws no randomness", (name) => {
    expect(impuritiesReachableFrom(join(DOMAIN, name))).toEqual([]);
  });

  // Pure is not enough: the core names no adapter folder (src/chains, src/kafka, src/gateway, ...),
  // so a chain family's signature checks or encodings live with that chain, not here.
  it.each(domainFiles)("src/domain/%s imports nothing outside src/domain", (name) => {
    const path = join(DOMAIN, name);
    const outside = scan(readFileSync(path, "utf8"), name)
      .localImports.map((spec) => resolve(dirname(path), spec))
      .filter((target) => !target.startsWith(DOMAIN + sep))
      .map((target) => relative(ROOT, target).split(sep).join("/"));
    expect(outside).toEqual([]);
  });
});

describe("the purity scanner", () => {
  it.each([
    ['import { readFileSync } from "node:fs";', 'imports the Node built-in "node:fs"'],
    ['import type { UUID } from "crypto";', 'imports the Node built-in "crypto"'],
    ['export * from "node:events";', 'imports the Node built-in "node:events"'],
    ['const m = await import("node:os");', 'imports the Node built-in "node:os"'],
    ['const k = require("kafkajs");', 'imports the adapter library "kafkajs"'],
    ['import { Kafka } from "kafkajs";', 'imports the adapter library "kafkajs"'],
    ['import Fastify from "fastify";', 'imports the adapter library "fastify"'],
    ['import cors from "@fastify/cors";', 'imports the adapter library "@fastify/cors"'],
    ['import { Client } from "cassandra-driver";', 'imports the adapter library "cassandra-driver"'],
    ['import { createPublicClient } from "viem";', "imports viem's createPublicClient"],
    ['import { createWalletClient as wallet } from "viem";', "imports viem's createWalletClient"],
    ['import { keccak256, http } from "viem";', "imports viem's http"],
    ['export { webSocket } from "viem";', "imports viem's webSocket"],
    ['import * as viem from "viem";', 'imports all of "viem"'],
    ['import { getBalance } from "viem/actions";', 'imports "viem/actions" (not a pure viem entry)'],
    ["const t = Date.now();", "reads the clock: Date.now"],
    ["const t = new Date();", "reads the clock: new Date()"],
    ["const t = new Date;", "reads the clock: new Date()"],
    ["const t = Date();", "reads the clock: Date()"],
    ["const r = Math.random();", "draws randomness: Math.random"],
    ["const id = crypto.randomUUID();", "draws randomness: crypto.randomUUID"],
    ["const id = globalThis.crypto.randomUUID();", "draws randomness: .randomUUID"],
    ["const env = process.env.MODE;", "reads the process: process.env"],
    ["const env = globalThis.process.env;", "reads the process: globalThis.process"],
  ])("flags %s", (source, finding) => {
    expect(impurities(source).join("\n")).toContain(finding);
  });

  it("follows relative imports out of the core and reports what they do", () => {
    const dir = mkdtempSync(join(tmpdir(), "purity-"));
    writeFileSync(join(dir, "core.ts"), 'import { helper } from "./helper.js";\nexport const x = helper;\n');
    writeFileSync(
      join(dir, "helper.ts"),
      'import { http } from "./transport.ts";\nexport const helper = http;\n',
    );
    writeFileSync(join(dir, "transport.ts"), 'export { http } from "viem";\nexport const t = Date.now();\n');
    try {
      const found = impuritiesReachableFrom(join(dir, "core.ts")).join("\n");
      expect(found).toContain("imports viem's http");
      expect(found).toContain("reads the clock: Date.now");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    'import { keccak256, getAddress, type Hex } from "viem";',
    'import { hexToBigInt } from "viem/utils";',
    'import { base } from "viem/chains";',
    'import type { Transfer } from "./types.ts";',
    "const iso = new Date(ms).toISOString();",
    "// no Date.now(), Math.random() or process.env here, only in this comment",
    'const s = "process.env and new Date() inside a string";',
    "const { now } = command.data;",
  ])("lets %s through", (source) => {
    expect(impurities(source)).toEqual([]);
  });
});
