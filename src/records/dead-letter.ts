import * as f from "../record-fields/fields.ts";

/**
 * deadletter: an input record parked after a terminal error (its bytes in base64, so any record of
 * any topic fits), or the note that an operator re-drove one (src/kafka/dead-letter.ts).
 */
export const deadLetter = f.record({
  kind: f.oneOf(["parked", "redriven"] as const),
  group: f.string,
  topic: f.string,
  partition: f.number,
  offset: f.number,
  key: f.nullable(f.string),
  value: f.nullable(f.string),
  headers: f.array(f.record({ name: f.string, value: f.nullable(f.string) })),
  errorCode: f.string,
  errorMessage: f.string,
  at: f.number,
  redrivenTo: f.nullable(f.number),
});
export type DeadLetter = f.Infer<typeof deadLetter>;
