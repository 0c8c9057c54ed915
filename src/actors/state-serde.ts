import { gunzipSync, gzipSync } from "node:zlib";
import type { Session } from "../domain/types.ts";

/**
 * Session states as JSON for snapshots and the read model. bigint has no JSON form, so it is
 * written as {"$bigint":"<decimal>"} and revived on the way back.
 */
export function stateToJson(state: Session): string {
  return JSON.stringify(state, (_k, v) => (typeof v === "bigint" ? { $bigint: v.toString() } : v));
}

export function stateFromJson(json: string): Session {
  return JSON.parse(json, (_k, v) =>
    v !== null && typeof v === "object" && typeof v.$bigint === "string" && Object.keys(v).length === 1
      ? BigInt(v.$bigint)
      : v,
  ) as Session;
}

/** A partition's states as gzip of JSON lines. */
export function packStates(states: Iterable<Session>): Buffer {
  const lines: string[] = [];
  for (const s of states) lines.push(stateToJson(s));
  return gzipSync(Buffer.from(lines.join("\n")), { level: 1 });
}

export function unpackStates(blob: Buffer): Session[] {
  const text = gunzipSync(blob).toString("utf8");
  return text.length === 0 ? [] : text.split("\n").map(stateFromJson);
}
