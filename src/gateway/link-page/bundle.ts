import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ENTRY = fileURLToPath(new URL("./page.ts", import.meta.url));
const BUFFER_GLOBAL = fileURLToPath(new URL("./buffer-global.ts", import.meta.url));

/**
 * The hosted payment page's script (./page.ts and the client library it drives), bundled for the
 * browser with esbuild the first time it is asked for, then served from memory: no CDN, no network,
 * no build step before `npm start`. A failed build is not cached, so the next request tries again.
 */
export function createPageScript(): () => Promise<string> {
  let bundled: Promise<string> | undefined;
  return () => {
    bundled ??= build({
      entryPoints: [ENTRY],
      bundle: true,
      // "browser" also picks the packages' browser builds (qrcode draws with a canvas, not a PNG encoder).
      platform: "browser",
      format: "esm",
      target: "es2022",
      // The Solana libraries' bare `Buffer` is the `buffer` package's (./buffer-global.ts).
      inject: [BUFFER_GLOBAL],
      minify: true,
      write: false,
      logLevel: "silent",
      legalComments: "none",
    }).then(
      (result) => result.outputFiles[0]?.text ?? "",
      (err: unknown) => {
        bundled = undefined;
        throw err;
      },
    );
    return bundled;
  };
}
