import { readdirSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The client library is for payers' apps, browsers included: what it loads at run time must be its
 * own files, the two support modules it shares with the service, the EIP-712 definitions it signs
 * with (src/chains/evm/typed-data/eip712.ts: the same objects the gateway verifies against and the delegate's
 * structs, so a type string cannot drift), the Solana bounce setup and sweep it signs (src/chains/solana/
 * bounce-setup.ts, sweep.ts and refund.ts: the transactions the service rebuilds and compares byte for byte), and
 * browser-safe libraries (viem, web3.js, spl-token, @solana/kit for the Ed25519 registration signature
 * over WebCrypto, and the Buffer polyfill web3.js itself needs). Its wire types come from the shared
 * schema definitions (src/api/, the one HTTP contract the gateway validates with) through type-only imports, which compilation erases; this test compiles
 * each file the way a bundler does and follows what is left. A route file is never imported, not
 * even for a type: the schemas a client needs live where both the routes and the clients take them.
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

/** The files a client library's sources and their shared schema definitions import, types included. */
function sourceImports(file: string, text: string = readFileSync(file, "utf8")): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.filter(({ fileName }) => fileName.startsWith("."))
    .map(({ fileName }) => relative(ROOT, resolve(dirname(file), fileName)));
}

/**
 * What the client libraries reach outside their own files and src/api/, type-only imports included:
 * every file of src/client/ and src/api/ is followed, anything else is listed and not followed.
 */
function clientReach(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const reached = new Set<string>();
  const visit = (rel: string) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    for (const dep of sourceImports(resolve(ROOT, rel))) {
      if (dep.startsWith("src/client/") || dep.startsWith("src/api/")) visit(dep);
      else reached.add(dep);
    }
  };
  for (const entry of entries) visit(entry);
  return reached;
}

/** Gateway files a client reaches: none, since every route's schemas live in src/api/. */
const gatewayFilesOf = (files: Iterable<string>): string[] =>
  [...files].filter((f) => f.startsWith("src/gateway/")).sort();

describe("the client libraries' types", () => {
  it("come from the one HTTP contract in src/api/, never from a gateway file", () => {
    // Every file of the libraries, not only what the entries load: a file no entry exports is published too.
    const files = readdirSync(resolve(ROOT, "src/client"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => `src/client/${f}`);
    expect(files).toContain("src/client/merchant/types.ts");
    const reached = clientReach(files);
    expect(gatewayFilesOf(reached)).toEqual([]);
    // The payer's wire types are the routes' own contract.
    expect(sourceImports(resolve(ROOT, "src/client/types.ts")).sort()).toEqual([
      "src/api/providers.ts",
      "src/api/sessions.ts",
      "src/api/settlement.ts",
      "src/api/solana.ts",
      "src/api/stealth-withdraw.ts",
    ]);
  });

  it("would see a type-only import of a route file (the check can fail)", () => {
    const file = resolve(ROOT, "src/client/merchant/types.ts");
    const imports = sourceImports(
      file,
      'import type { merchantSchema } from "../../gateway/routes/merchants.ts";\n' +
        'import type { PaymentSessionObject } from "../../gateway/checkout.ts";',
    );
    expect(gatewayFilesOf(imports)).toEqual(["src/gateway/checkout.ts", "src/gateway/routes/merchants.ts"]);
  });
});

describe("the client library's run-time imports", () => {
  it("are its own files, the error model, retry rule, EIP-712 types, router ABI, Solana bounce setup, sweep, refund and stealth withdrawal, both stealth schemes, the Solana announcement memo, and browser-safe packages", () => {
    const { files, packages } = runtimeGraph(ENTRY);
    // uniswap-v2.ts: the router ABI quoteOnChain reads (the payer's own quote); it imports only viem.
    // stealth/erc5564.ts: the scheme the recipient's scanner runs, the one the gateway derives with (pure, @noble).
    // stealth/solana-memo.ts: the Solana announcement's memo text, written by the executor, parsed by the scanner.
    // solana/client-transaction.ts: the sweep's, refund's and setup's check by effect (web3.js, @noble).
    expect(files.filter((f) => !f.startsWith("src/client/"))).toEqual([
      "src/chains/evm/typed-data/eip712.ts",
      "src/chains/evm/typed-data/stealth-withdraw.ts",
      "src/chains/evm/uniswap-v2.ts",
      "src/chains/solana/bounce-setup.ts",
      "src/chains/solana/client-transaction.ts",
      "src/chains/solana/refund.ts",
      "src/chains/solana/stealth-withdraw.ts",
      "src/chains/solana/sweep.ts",
      "src/stealth/ed25519.ts",
      "src/stealth/erc5564.ts",
      "src/stealth/solana-memo.ts",
      "src/support/errors.ts",
      "src/support/retry.ts",
    ]);
    expect(packages).toEqual([
      "@noble/curves/abstract/modular",
      "@noble/curves/abstract/utils",
      "@noble/curves/ed25519",
      "@noble/curves/secp256k1",
      "@noble/hashes/sha2",
      "@noble/hashes/sha3",
      "@noble/hashes/utils",
      "@solana/kit",
      "@solana/spl-token",
      "@solana/web3.js",
      "buffer",
      "eventsource-parser/stream",
      "viem",
      "viem/accounts",
    ]);
  }, 30_000);

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
      'import { sessionSchema } from "../api/sessions.ts"; void sessionSchema;',
      {
        compilerOptions: { module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true },
      },
    );
    expect(ts.preProcessFile(outputText, true, true).importedFiles.map((f) => f.fileName)).toEqual([
      "../api/sessions.ts",
    ]);
  });
});
