import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * verifyWebhook is asynchronous: a call without `await` is a pending promise, and the code after it
 * accepts a forgery (the interface warns of this). Merchants copy examples, so every call in a code
 * example of the README, the docs and the library's own comments must await it.
 */

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

/** The code examples of a markdown file or a source file's comments: fenced blocks and `@example`s. */
function examples(text: string): string[] {
  const fenced = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  const tagged = [...text.matchAll(/@example\n([\s\S]*?)\*\//g)].map((m) => m[1] ?? "");
  return [...fenced, ...tagged];
}

/** Each call of verifyWebhook in the code that is not awaited, with what stands before it. */
function unawaited(code: string): string[] {
  return [...code.matchAll(/(\S*\s*)verifyWebhook\(/g)]
    .map((m) => m[0])
    .filter((call) => !/^await\s+verifyWebhook\($/.test(call));
}

const SOURCES = [
  "README.md",
  ...readdirSync(new URL("../../docs/", import.meta.url)).map((f) => `docs/${f}`),
  "src/client/merchant/verify-webhook.ts",
  "src/client/merchant/index.ts",
].filter((f) => f.endsWith(".md") || f.endsWith(".ts"));

describe("the examples of verifyWebhook", () => {
  it("await every call, in the README, the docs and the library's comments", () => {
    const found = SOURCES.flatMap((file) => examples(read(file)).map((code) => ({ file, code })));
    const calls = found.filter(({ code }) => code.includes("verifyWebhook("));
    expect(calls.map((c) => c.file)).toEqual(
      expect.arrayContaining(["docs/MERCHANTS.md", "docs/MERCHANT-CLIENT.md", "docs/WEBHOOKS.md"]),
    );
    expect(calls.flatMap(({ file, code }) => unawaited(code).map((call) => `${file}: ${call}`))).toEqual([]);
  });

  it("would notice a call without await (the check can fail)", () => {
    expect(unawaited("const ok = await verifyWebhook({});\nconst bad = verifyWebhook({});")).toEqual([
      "= verifyWebhook(",
    ]);
    expect(examples("```ts\nverifyWebhook(x)\n```")).toEqual(["verifyWebhook(x)\n"]);
  });
});
