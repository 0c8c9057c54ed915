import type { LocalChain } from "../../deploy/local/chains.ts";
import { newBurner, sessionBody } from "./payer.ts";

/**
 * Gateway processes for tests that load them from this one address: every request comes from
 * 127.0.0.1, and the default limit (5/s) would answer most with 429.
 */
export const LOADED_GATEWAY_ENV = {
  LOG_LEVEL: "warn",
  PORT: "0",
  RATE_LIMIT_PER_SECOND: "1000000",
  RATE_LIMIT_BURST: "1000000",
};

/** The line a gateway prints once it listens (src/app/cli.ts); its group is the URL. */
export const GATEWAY_READY = /^gateway\s+listening on (http:\/\/\S+)/;

/** `n` POST /sessions bodies, each with a burner of its own, signed on `source` for `dest`. */
export async function signedSessionBodies(
  n: number,
  source: LocalChain,
  dest: LocalChain,
): Promise<string[]> {
  const bodies: string[] = [];
  for (let i = 0; i < n; i++) bodies.push(JSON.stringify(sessionBody(await newBurner(source), dest)));
  return bodies;
}
