import { setTimeout as sleep } from "node:timers/promises";
import type { Session } from "../../src/domain/types.ts";
import type { SessionHost } from "../../src/entities/session.ts";

/** Polls `probe` until it answers something other than undefined; fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 120_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** A session's state in whichever partition `host` owns it, if it owns it. */
export function stateOn(host: Pick<SessionHost, "owned" | "statesOf">, id: string): Session | undefined {
  for (const p of host.owned()) {
    const s = host.statesOf(p)?.get(id);
    if (s) return s;
  }
  return undefined;
}
