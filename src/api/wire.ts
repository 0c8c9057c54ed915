import { z } from "zod";

/**
 * The shapes every route's contract is built from: 0x hex, uint256 as decimal strings, signatures by
 * chain, the EIP-7702 authorization and the one error body. Request objects are strict (an unknown key
 * is a 400, which also shuts out `__proto__` / `constructor` / `prototype`); every string is bounded.
 */

type Hex = `0x${string}`;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export const hexOf = (pattern: string, what: string) =>
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
/**
 * zod's records skip an own `__proto__` key silently (strict objects report it); refuse it instead,
 * so the schema alone rejects every prototype-pollution key, whatever parsed the JSON.
 */
export function withoutProtoKey<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (typeof value === "object" && value !== null && Object.hasOwn(value, "__proto__")) {
      ctx.addIssue({ code: "custom", message: "must not use the key __proto__" });
    }
    return value;
  }, schema);
}

export const uint = (min = 0) => z.number().int().min(min).max(MAX_SAFE);

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
export const signaturesByChain = withoutProtoKey(
  z
    .record(chainIdKey, signature65)
    .refine((m) => Object.keys(m).length > 0, "must hold at least one signature")
    .refine(
      (m) => Object.keys(m).length <= MAX_REFUND_CHAINS,
      `must hold at most ${MAX_REFUND_CHAINS} signatures`,
    ),
);

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

/** Every error answer: `{ "error": string }` (docs/API.md). */
export const errorSchema = z.object({ error: z.string() });

/** A 204's body: none. */
export const noContentSchema = z.null();
