import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The client library is for payers' apps, browsers included: what it loads at run time must be its
 * own files, the two support modules it shares with the service, the EIP-712 definitions it signs
 * with (src/chains/evm/eip712.ts: the same objects the gateway verifies against and the delegate's
 * structs, so a type string cannot drift), and browser-safe libraries. Its
 * wire types come from the gateway's schemas through type-only imports (src/client/types.ts), which
 * compilation erases; this test compiles each file the way a bundler does and follows what is left.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENTRY = resolve(ROOT, "src/client/index.ts");
const MERCHANT_ENTRY = resolve(ROOT, "src/client/merchant/index.ts");

/** Every module the entry loads at run time: local files (relative to the root) and packages. */
function runtimeGraph(entry: string) {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2023,
        verbatimModuleSyntax: true,
      },
    });
    for (const { fileName } of ts.preProcessFile(outputText, true, true).importedFiles) {
      if (fileName.startsWith(".")) visit(resolve(dirname(file), fileName));
      else packages.add(fileName);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => relative(ROOT, f)).sort(), packages: [...packages].sort() };
}

describe("the client library's run-time imports", () => {
  it("are its own files, the error model, retry rule, EIP-712 types and router ABI, viem and the SSE parser", () => {
    const { files, packages } = runtimeGraph(ENTRY);
    // uniswap-v2.ts: the router ABI quoteOnChain reads (the payer's own quote); it imports only viem.
    expect(files.filter((f) => !f.startsWith("src/client/"))).toEqual([
      "src/chains/evm/eip712.ts",
      "src/chains/evm/uniswap-v2.ts",
      "src/support/errors.ts",
      "src/support/retry.ts",
    ]);
    expect(packages).toEqual(["eventsource-parser/stream", "viem", "viem/accounts"]);
  });

  it("of the merchant entry are client files and the same two support modules, and no package", () => {
    // Its wire types come from the merchant routes' schemas, type-only (src/client/merchant/types.ts):
    // a merchant's server or edge function loads neither the gateway nor zod. WebCrypto is a global.
    const { files, packages } = runtimeGraph(MERCHANT_ENTRY);
    expect(files.filter((f) => !f.startsWith("src/client/"))).toEqual([
      "src/support/errors.ts",
      "src/support/retry.ts",
    ]);
    expect(files).toContain("src/client/merchant/verify-webhook.ts");
    expect(packages).toEqual([]);
  });

  it("would see a value import of the gateway's schemas (the check can fail)", () => {
    const { outputText } = ts.transpileModule(
      'import { sessionSchema } from "../gateway/schemas.ts"; void sessionSchema;',
      {
        compilerOptions: { module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true },
      },
    );
    expect(ts.preProcessFile(outputText, true, true).importedFiles.map((f) => f.fileName)).toEqual([
      "../gateway/schemas.ts",
    ]);
  });
});
