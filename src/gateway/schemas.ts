import { z } from "zod";
import { FLOWS, STATUSES } from "../domain/types.ts";
import type { SessionView } from "../domain/view.ts";
import { jsonSchemaOf } from "../record-fields/fields.ts";
import { sessionObject } from "../records/session-state.ts";
import type { HealthReport } from "./ports.ts";

/**
 * The gateway's wire schemas: the one source for request validation, response serialisation, the
 * TypeScript types of handlers and the OpenAPI document. Request objects are strict (an unknown key
 * is a 400, which also shuts out `__proto__` / `constructor` / `prototype`); every string is bounded.
 */

type Hex = `0x${string}`;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

const hexOf = (pattern: string, what: string) =>
  z
    .string()
    .regex(new RegExp(`^0x(?:${pattern})$`), `must be ${what}`)
    .transform((v) => v.toLowerCase() as Hex);

/** A 20-byte 0x address, any case on the way in, lower case on the way out. */
export const addressSchema = hexOf("[0-9a-fA-F]{40}", "a 0x address (20 bytes of hex)");
/** r and s of a secp256k1 signature: exactly 32 bytes, as viem and ethers produce them. */
const word = hexOf("[0-9a-fA-F]{64}", "32 bytes of 0x hex");
/** r || s || v, the form BurnerDelegate's ECDSA.recover accepts. */
export const signature65 = hexOf("[0-9a-fA-F]{130}", "a 65-byte 0x signature");
/** ed25519 key (32 bytes) or secp256k1 key, compressed (33) or not (65). */
const ephemeralKey = hexOf(
  "[0-9a-fA-F]{64}|[0-9a-fA-F]{66}|[0-9a-fA-F]{130}",
  "a 32-, 33- or 65-byte 0x public key",
);

/**
 * zod's records skip an own `__proto__` key silently (strict objects report it); refuse it instead,
 * so the schema alone rejects every prototype-pollution key, whatever parsed the JSON.
 */
function withoutProtoKey<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (typeof value === "object" && value !== null && Object.hasOwn(value, "__proto__")) {
      ctx.addIssue({ code: "custom", message: "must not use the key __proto__" });
    }
    return value;
  }, schema);
}

const uint = (min = 0) => z.number().int().min(min).max(MAX_SAFE);

/** Decimal chain id as an object key: no sign, no leading zero, at most 15 digits (stays a safe integer). */
const chainIdKey = z.string().regex(/^[1-9][0-9]{0,14}$/, "must be a decimal chain id");
const MAX_REFUND_CHAINS = 32;

export const authorizationSchema = z.strictObject({
  address: addressSchema,
  /** 0 means "valid on every chain" (EIP-7702). */
  chainId: uint(0),
  nonce: uint(0),
  r: word,
  s: word,
  yParity: z.number().int().min(0).max(1),
});

/** Source chain id (decimal string) -> 65-byte signature, 1 to MAX_REFUND_CHAINS entries. */
const signaturesByChain = withoutProtoKey(
  z
    .record(chainIdKey, signature65)
    .refine((m) => Object.keys(m).length > 0, "must hold at least one signature")
    .refine(
      (m) => Object.keys(m).length <= MAX_REFUND_CHAINS,
      `must hold at most ${MAX_REFUND_CHAINS} signatures`,
    ),
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

// ---------------------------------------------------------------------------------------------------
// Settlement: commit, quote, refunds (src/gateway/routes/settlement.ts)

const UINT256_MAX = 2n ** 256n - 1n;
/** A uint256 as the interface writes it: a decimal string, no sign, no leading zero. */
export const uint256 = (what: string) =>
  z
    .string()
    // abort: the checks after it read the string as a number.
    .regex(/^(0|[1-9][0-9]{0,77})$/, { error: `must be ${what} as a decimal string`, abort: true })
    .refine((v) => BigInt(v) <= UINT256_MAX, "must fit in 256 bits")
    .transform((v) => BigInt(v));
export const positive256 = (what: string) => uint256(what).refine((v) => v > 0n, "must be greater than 0");
export const bytes32 = hexOf("[0-9a-fA-F]{64}", "32 bytes of 0x hex");
export const decimal = z.string().describe("decimal integer in base units");

/** The Intent in its wire form (snake_case; every uint256 a decimal string). */
export const intentWireSchema = z.strictObject({
  dest_chain_id: uint(1),
  dest_addr: addressSchema,
  min_out: uint256("the USDC floor"),
  deadline: uint(1).describe("Unix seconds"),
  salt: bytes32,
  in_token: addressSchema.describe("the detected token; the zero address for the native coin"),
  max_in: positive256("the detected amount"),
  app_fee_bps: z.number().int().min(0).max(10_000),
  app_fee_recipient: addressSchema,
});
export type IntentWire = z.output<typeof intentWireSchema>;

export const commitBodySchema = z.strictObject({
  burner: addressSchema,
  eip7702_auth: authorizationSchema,
  intent: intentWireSchema,
  intent_sigs: signaturesByChain.describe("source chain id -> the Intent's EIP-712 signature on that chain"),
});
export type CommitBody = z.output<typeof commitBodySchema>;

export const commitResponseSchema = z.object({
  id: z.uuid(),
  status: z.enum(STATUSES),
  fee_bps: z.number().int().describe("platform fee resolved at commit"),
  app_fee_bps: z.number().int(),
  app_fee_recipient: z.string(),
});

export const quoteResponseSchema = z.object({
  estimated_out: decimal.describe("USDC the pool gives for max_in of in_token now"),
  suggested_min_out: decimal.describe("floor(estimated_out * (10000 - slippage_bps) / 10000)"),
  chain_id: z.number().int().describe("the source chain, where the swap happens"),
  in_token: z.string(),
  max_in: decimal,
  slippage_bps: z.number().int(),
});

export const refundBodySchema = z.strictObject({
  token: addressSchema.describe("the zero address for the native coin"),
  to: addressSchema,
  amount: positive256("the amount in base units"),
  deadline: uint(1).describe("Unix seconds; must be in the future"),
  salt: bytes32,
  signature: signature65,
  chain_id: uint(1),
});
export type RefundBody = z.output<typeof refundBodySchema>;

export const refundResponseSchema = z.object({ tx_hash: z.string(), to: z.string(), token: z.string() });

export const standingRefundResponseSchema = z.object({
  id: z.uuid(),
  status: z.enum(STATUSES),
  standing_refund: z.object({
    to: z.string(),
    deadline: z.number().int(),
    signatures: z.record(z.string(), z.string()),
  }),
});

export const refundAllBodySchema = z.strictObject({
  token: z
    .union([z.literal("native"), addressSchema])
    .describe("an ERC-20 0x address, or `native` for the chain's coin"),
  chain_id: uint(1),
});

export const refundAllResponseSchema = z.object({
  tx_hash: z.string(),
  refund_address: z.string(),
  token: z.string(),
  amount: z.literal("full"),
});

const nullable = <T extends z.ZodType>(t: T) => t.nullable();
/**
 * The Session object: derived from the session.state record's definition
 * (src/records/session-state.ts), the same object the gateway relays from that topic, so the two
 * cannot drift; anything else is stripped.
 */
export const sessionSchema = jsonSchemaOf(sessionObject);

export const errorSchema = z.object({ error: z.string() });

const check = z.object({ ok: z.boolean(), error: nullable(z.string()) });
export const healthReportSchema = z.object({
  healthy: z.boolean(),
  checks: z.object({
    database: check.extend({ latency_ms: nullable(z.number()) }),
    indexers: z.array(
      check.extend({
        chain_id: z.number().int(),
        last_block: nullable(z.number()),
        lag_seconds: nullable(z.number()),
      }),
    ),
    relayers: z.array(
      check.extend({
        chain_id: z.number().int(),
        address: nullable(z.string()),
        balance_wei: nullable(z.string()),
        min_balance_wei: z.string(),
      }),
    ),
  }),
});

// Compile-time guards: both response schemas accept what the core and the health port produce, and
// the Session schema names exactly sessionView's fields, so a field added there fails the build until
// the schema (and docs/API.md) follow.
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
const sessionKeys: SameKeys<SessionView, z.output<typeof sessionSchema>> = true;
const sessionFits = (v: SessionView): z.input<typeof sessionSchema> => v;
const healthFits = (h: HealthReport): z.input<typeof healthReportSchema> => h;
void sessionKeys;
void sessionFits;
void healthFits;
