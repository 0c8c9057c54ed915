import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

/**
 * `src/cli.ts` as one ES module file, for the fault proof's many processes. Under `--import tsx`
 * each process spends ~3.5 s of CPU resolving and loading a few hundred TypeScript modules through
 * the loader hooks (measured: docs/RELIABILITY.md); a dozen starting at once on two cores took a
 * minute. The bundle is the same source, transformed by the same esbuild tsx uses, with the
 * packages left as imports: ~1.3 s a process.
 *
 * Modules that find their files next to themselves (the Avro schemas, the migrations, the payment
 * page) read `import.meta.url`: the plugin gives each its own file's URL, so those paths do not
 * move. The file lands in node_modules/.cache so the packages resolve as they do for src/, and is
 * named by its content, so worktrees sharing node_modules never overwrite each other's.
 */
export async function bundleCli(root = "."): Promise<string> {
  const result = await build({
    entryPoints: [resolve(root, "src/cli.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    write: false,
    logLevel: "silent",
    plugins: [ownFileUrl],
  });
  const text = result.outputFiles[0]?.text;
  if (!text) throw new Error("esbuild wrote no bundle of src/cli.ts");
  const dir = resolve(root, "node_modules/.cache/fault-proof");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `cli-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    // Written aside and renamed: a process never starts on half a file.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, text);
    renameSync(partial, file);
  }
  return file;
}

const ownFileUrl: Plugin = {
  name: "own-file-url",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replaceAll("import.meta.url", url), loader: "ts" };
    });
  },
};
