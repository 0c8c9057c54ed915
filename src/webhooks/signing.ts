import { createHmac, randomBytes } from "node:crypto";

/**
 * The interface's webhook signature (interface.md, "Signature rules"):
 * `Service-Signature: t=<unix_seconds>,v1=<hex(HMAC-SHA256(secret, t + "." + raw_body))>`. The key
 * is the whole secret string as UTF-8, `whsec_` prefix included (as Stripe does), so a merchant
 * passes the secret exactly as the PUT answered it. The merchant side of this is
 * src/client/merchant/verify-webhook.ts.
 */
export const SIGNATURE_HEADER = "Service-Signature";
export const SECRET_PREFIX = "whsec_";

/** hex(HMAC-SHA256(secret, `${t}.${body}`)): the `v1` of the header. */
export function signatureV1(secret: string, t: number, body: string | Uint8Array): string {
  return createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex");
}

/**
 * The header for one attempt, signed at `nowMs`: each attempt signs anew, so a retry minutes after
 * the event is still inside the receiver's 300 s window.
 */
export function signatureHeader(secret: string, body: string | Uint8Array, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${signatureV1(secret, t, body)}`;
}

/** A new signing secret: `whsec_` and 32 random bytes (256 bits, the HMAC-SHA256 key size), base64url. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;
}
