import { z } from "zod";

// The operator's resources (/v1/operator/*, docs/OPERATIONS.md): the routes answer with these
// schemas and the operator CLI (src/operator/cli.ts) infers its types from them.

const TABLE = /^[a-z][a-z0-9_]{0,47}$/;
export const tableNameSchema = z
  .string()
  .regex(TABLE, "must be a table name: a lower-case letter, then up to 47 of a-z, 0-9 and _");

export const journalEntrySchema = z.object({
  partition: z.number().int(),
  offset: z.string().describe("the record's offset on session.events (decimal)"),
  time: z.string().describe("the record's Kafka timestamp, ISO 8601 UTC"),
  type: z.string().describe('the event type, or "undecodable" for a record the codec refused'),
  version: z.number().int().nullable().describe("the session's version after the event"),
  occurred_at: z.string().nullable().describe("ISO 8601 UTC: when the causing command was issued"),
  command_id: z.string().nullable(),
  data: z.unknown().describe("the event's data as recorded (integers beyond 2^53 as decimal strings)"),
});
export const journalSchema = z.object({
  session_id: z.string(),
  events: z.array(journalEntrySchema),
});

export const deadLetterSchema = z.object({
  topic: z.string().describe("where the record came from"),
  partition: z.number().int(),
  offset: z.number().int(),
  group: z.string().describe("the consumer group that parked it"),
  error_code: z.string(),
  error_message: z.string(),
  parked_at: z.string().describe("ISO 8601 UTC"),
  key: z.string().nullable().describe("base64"),
  value_bytes: z.number().int().nullable(),
  redriven_to: z.number().int().nullable().describe("offset of its copy on `topic`, null while parked"),
});
export const deadLettersSchema = z.object({ data: z.array(deadLetterSchema) });
export const redriveBodySchema = z.strictObject({
  topic: z.string().min(1).max(249),
  partition: z.number().int().min(0),
  offset: z.number().int().min(0),
});
export const redrivenSchema = z.object({
  topic: z.string(),
  partition: z.number().int(),
  offset: z.number().int(),
  redriven_to: z.number().int().describe("offset of the copy on the same topic and partition"),
});

const partitionLagSchema = z.object({
  partition: z.number().int(),
  committed: z.number().int().nullable().describe("the group's committed offset; null when none"),
  end: z.number().int().describe("the partition's high watermark"),
  lag: z.number().int(),
});
export const lagSchema = z.object({
  roles: z.array(
    z.object({
      role: z.string(),
      lag: z.number().int(),
      groups: z.array(
        z.object({
          group: z.string(),
          lag: z.number().int(),
          topics: z.array(
            z.object({ topic: z.string(), lag: z.number().int(), partitions: z.array(partitionLagSchema) }),
          ),
        }),
      ),
    }),
  ),
});

export const readModelsSchema = z.object({
  active: z.string().describe("the table the gateways read"),
  following: z.array(z.string()).describe("other tables the projectors keep current"),
  retired: z.array(z.string()).describe("tables no longer written (kept until dropped)"),
  version: z.number().int(),
  read_by_this_gateway: z.string().describe("the table the gateway that answered reads now"),
});
export const tableBodySchema = z.strictObject({ table: tableNameSchema });
export const builtSchema = z.object({
  table: z.string(),
  sessions: z.number().int(),
  events: z.number().int(),
  ms: z.number().int(),
  replayed_to: z
    .array(z.object({ partition: z.number().int(), offset: z.number().int() }))
    .describe(
      "where the replay stopped in each partition of session.events; the table follows on from there",
    ),
  read_models: readModelsSchema,
});

export type JournalEntry = z.infer<typeof journalEntrySchema>;
export type Journal = z.infer<typeof journalSchema>;
export type DeadLetterView = z.infer<typeof deadLetterSchema>;
export type Redriven = z.infer<typeof redrivenSchema>;
export type LagView = z.infer<typeof lagSchema>;
export type ReadModelsView = z.infer<typeof readModelsSchema>;
export type Built = z.infer<typeof builtSchema>;

/** GET /v1/operator/dead-letters: optionally only those parked from one topic. */
export const deadLettersQuerySchema = z.strictObject({ topic: z.string().min(1).max(249).optional() });
