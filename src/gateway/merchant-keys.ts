import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IssuedKey, KeyKind } from "../domain/merchant/types.ts";

/**
 * Keys and secrets of merchant mode, as Stripe shapes them: a type prefix (`pk_` publishable, `sk_`
 * secret, `cs_` a checkout session's client secret), the mode (`live_` in production, `test_` in
 * development; a key of the other mode is malformed here) and 32 random bytes, base64url. Only a
 * SHA-256 of a secret is ever stored; a request's key is looked up by its hash, and hashes are
 * compared timing-safe. A key of 256 random bits needs no slow, salted hash: nothing can be guessed.
 */

export type SecretPrefix = "pk" | "sk" | "cs";
export type KeyMode = "live" | "test";

const PREFIX_OF: Record<KeyKind, SecretPrefix> = { publishable: "pk", secret: "sk" };

/** The mode of the keys a server issues and accepts. */
export const keyModeOf = (merchantMode: "development" | "production"): KeyMode =>
  merchantMode === "production" ? "live" : "test";

/** A new secret of this type and mode; 43 base64url characters carry the 32 random bytes. */
export function newSecret(prefix: SecretPrefix, mode: KeyMode): string {
  return `${prefix}_${mode}_${randomBytes(32).toString("base64url")}`;
}

const SHAPE = /^(pk|sk|cs)_(live|test)_[A-Za-z0-9_-]{43}$/;

/** The type of a well-formed key of this mode, or null: a malformed key is refused before any lookup. */
export function keyPrefix(text: string, mode: KeyMode): SecretPrefix | null {
  const m = SHAPE.exec(text);
  return m && m[2] === mode ? (m[1] as SecretPrefix) : null;
}

/** SHA-256 of the key, lowercase hex: what is stored and looked up. */
export const hashSecret = (secret: string): string =>
  createHash("sha256").update(secret, "utf8").digest("hex");

/** Compares two hashes in constant time (two hex strings of one length; anything else is unequal). */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A new merchant key: the text shown once, and what the journal keeps of it. */
export function issueKey(kind: KeyKind, mode: KeyMode): { key: string; issued: IssuedKey } {
  const key = newSecret(PREFIX_OF[kind], mode);
  return {
    key,
    issued: {
      keyId: `key_${randomBytes(12).toString("hex")}`,
      kind,
      hash: hashSecret(key),
      publishable: kind === "publishable" ? key : null,
      hint: key.slice(-4),
    },
  };
}

/**
 * A checkout session's client secret (`cs_`): the text handed once to the merchant that creates the
 * session, and the hash the session keeps (the checkout guard compares against it).
 */
export function issueClientSecret(mode: KeyMode): { secret: string; hash: string } {
  const secret = newSecret("cs", mode);
  return { secret, hash: hashSecret(secret) };
}

/** The canonical form of an e-mail address: what uniqueness is judged on. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/**
 * A new merchant's id: 96 random bits, so nothing public (an e-mail address, a name) leads to it,
 * and a session read that shows a `merchant_id` tells nobody who the merchant is. Uniqueness of the
 * e-mail is kept by `merchant_emails` (src/store/merchant-emails.ts), not by the id.
 */
export const newMerchantId = (): string => `mer_${randomBytes(12).toString("hex")}`;

/**
 * The id merchants created before ids were random were given: an unsalted hash of the e-mail. Only
 * to find such a merchant by its e-mail (a second creation with its address must still be refused);
 * no new merchant is given it.
 */
export function legacyMerchantId(email: string): string {
  const digest = createHash("sha256")
    .update(`settlement.merchant.v1:${normalizeEmail(email)}`)
    .digest("hex");
  return `mer_${digest.slice(0, 24)}`;
}
