import { z } from "zod";
import { FLOWS, STATUSES } from "../domain/types.ts";
import type { SessionView } from "../domain/view.ts";
import { jsonSchemaOf } from "../record-fields/fields.ts";
import { sessionObject } from "../records/session-state.ts";
import { addressSchema, authorizationSchema, hexOf, signaturesByChain, uint } from "./wire.ts";

// The payer's session routes (POST /sessions, GET /sessions/:id): the one source for their request
// validation, response serialisation, handler types, the client library's types and the OpenAPI document.

type Hex = `0x${string}`;

/** ed25519 key (32 bytes) or secp256k1 key, compressed (33) or not (65). */
const ephemeralKey = hexOf(
  "[0-9a-fA-F]{64}|[0-9a-fA-F]{66}|[0-9a-fA-F]{130}",
  "a 32-, 33- or 65-byte 0x public key",
);

export const standingRefundSchema = z.strictObject({
  to: addressSchema,
  deadline: uint(1).describe("Unix seconds; must be in the future"),
  signatures: signaturesByChain,
});

export const stealthSchema = z.strictObject({
  ephemeral_pubkey: ephemeralKey,
  view_tag: z.number().int().min(0).max(255),
});

/**
 * POST /sessions. Every destination chain is read as an EVM chain id (the Intent signs `dest_addr`
 * as an EVM address), so `destination_address` must be a 0x address; a non-EVM destination would
 * turn this field into a union keyed by chain kind.
 */
export const createSessionBodySchema = z
  .strictObject({
    burner_address: addressSchema,
    eip7702_auth: authorizationSchema,
    destination_address: z
      .string()
      .min(1)
      .max(128)
      .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x address (destination chains are EVM chains)")
      .transform((v) => v.toLowerCase() as Hex),
    destination_chain: uint(1),
    flow: z.enum(FLOWS).default("p2p_request"),
    standing_refund: standingRefundSchema.optional(),
    stealth: stealthSchema.optional().describe("required when flow is stealth_request, rejected otherwise"),
  })
  .superRefine((body, ctx) => {
    const wantsStealth = body.flow === "stealth_request";
    if (wantsStealth && body.stealth === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["stealth"],
        message: "is required when flow is stealth_request",
      });
    }
    if (!wantsStealth && body.stealth !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["stealth"],
        message: "is only allowed when flow is stealth_request",
      });
    }
  });
export type CreateSessionBody = z.output<typeof createSessionBodySchema>;

/** Stripe-style idempotency key; a retry with the same key and body answers the same session. */
export const createSessionHeadersSchema = z.looseObject({
  "idempotency-key": z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
    .optional(),
});

export const createSessionResponseSchema = z.object({
  id: z.uuid(),
  status: z.enum(STATUSES),
  expires_at: z.number().int().describe("Unix seconds"),
});

/** `:id` is a UUID; upper-case input reads the same session as lower-case. */
export const sessionParamsSchema = z.strictObject({
  id: z.uuid("must be a UUID").transform((v) => v.toLowerCase()),
});

/**
 * The session id of a request's raw params, or null when it is not a UUID. For preValidation hooks
 * (checkout guards), which run before the params schema: an id that is not a UUID must never reach a
 * read (Cassandra's UUID encoder throws); the route's own 400 follows.
 */
export function sessionIdOf(params: unknown): string | null {
  const parsed = sessionParamsSchema.safeParse(params);
  return parsed.success ? parsed.data.id : null;
}

/** POST /sessions/:id/register: the widget attaches its burner to a checkout session. */
export const registerBurnerBodySchema = z.strictObject({
  burner_address: addressSchema,
  eip7702_auth: authorizationSchema,
  standing_refund: standingRefundSchema.optional(),
});
export const registerBurnerResponseSchema = z.object({ id: z.uuid(), status: z.string() });

/** GET /sessions/:id/events: a checkout session's stream takes the widget's credentials in the query. */
export const streamQuerySchema = z.object({
  client_secret: z.string().max(256).optional(),
  pk: z.string().max(256).optional(),
});
export type StreamQuery = z.output<typeof streamQuerySchema>;

/**
 * The Session object: derived from the session.state record's definition
 * (src/records/session-state.ts), the same object the gateway relays from that topic, so the two
 * cannot drift; anything else is stripped.
 */
export const sessionSchema = jsonSchemaOf(sessionObject);

// Compile-time guards: the Session schema accepts what the core produces and names exactly
// sessionView's fields, so a field added there fails the build until the schema (and docs/API.md) follow.
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
const sessionKeys: SameKeys<SessionView, z.output<typeof sessionSchema>> = true;
const sessionFits = (v: SessionView): z.input<typeof sessionSchema> => v;
void sessionKeys;
void sessionFits;
