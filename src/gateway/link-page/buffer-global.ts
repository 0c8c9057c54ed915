/**
 * Node's `Buffer` for the browser bundle (bundle.ts injects it): web3.js and spl-token import the
 * `buffer` package, but some of their dependencies (bigint-buffer, behind every u64 amount) use the
 * bare global, which a browser does not have.
 */
// biome-ignore lint/style/useNodejsImportProtocol: the `buffer` package, not Node's module: this runs in a browser
export { Buffer } from "buffer";
