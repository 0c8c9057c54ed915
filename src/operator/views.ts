import type { DeadLetterView, JournalEntry, LagView } from "../api/operator.ts";
import type { SessionEvent } from "../domain/events.ts";
import type { TopicLag } from "../kafka/consumer-lag.ts";
import type { Parked } from "../kafka/dead-letter.ts";
import type { ReadRecord } from "../kafka/topic-reader.ts";

/**
 * What the operator routes answer, made from what Kafka holds. Pure: the I/O is in operator.ts.
 */

/** JSON has no bigint: amounts and block numbers go out as decimal strings, as the interface writes amounts. */
export function jsonSafe(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]));
  }
  return value;
}

/** One journal record: its place and time on the topic, and the event decoded (or why it could not be). */
export function journalEntry(record: ReadRecord, decoded: SessionEvent | { error: string }): JournalEntry {
  const place = {
    partition: record.partition,
    offset: record.offset.toString(),
    time: new Date(record.timestamp ?? 0).toISOString(),
  };
  if ("error" in decoded) {
    return {
      ...place,
      type: "undecodable",
      version: null,
      occurred_at: null,
      command_id: null,
      data: decoded,
    };
  }
  const { metadata } = decoded;
  return {
    ...place,
    type: decoded.type,
    version: metadata.version,
    occurred_at: new Date(metadata.occurredAt).toISOString(),
    command_id: metadata.commandId,
    data: jsonSafe(decoded.data),
  };
}

export function deadLetterView({ letter, redrivenTo }: Parked): DeadLetterView {
  return {
    topic: letter.topic,
    partition: letter.partition,
    offset: letter.offset,
    group: letter.group,
    error_code: letter.errorCode,
    error_message: letter.errorMessage,
    parked_at: new Date(letter.at).toISOString(),
    key: letter.key,
    value_bytes: letter.value === null ? null : Buffer.from(letter.value, "base64").length,
    redriven_to: redrivenTo,
  };
}

/** Groups' lags summed per role, roles in the order first seen. */
export function lagView(groups: Array<{ role: string; group: string; topics: TopicLag[] }>): LagView {
  const roles = new Map<string, LagView["roles"][number]>();
  for (const g of groups) {
    const topics = g.topics.map((t) => ({
      topic: t.topic,
      lag: Number(t.lag),
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        committed: p.committed === null ? null : Number(p.committed),
        end: Number(p.end),
        lag: Number(p.lag),
      })),
    }));
    const lag = topics.reduce((n, t) => n + t.lag, 0);
    const role = roles.get(g.role) ?? { role: g.role, lag: 0, groups: [] };
    role.groups.push({ group: g.group, lag, topics });
    role.lag += lag;
    roles.set(g.role, role);
  }
  return { roles: [...roles.values()] };
}
