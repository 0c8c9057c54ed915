import { ClientError } from "../errors.ts";

/** The header the service signs every webhook delivery with. */
export const SIGNATURE_HEADER = "Service-Signature";

/** The interface's replay window: a signature older (or newer) than this is refused. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * A webhook delivery body: `event_type` always; a session event (`payment.*`) adds `session_id`,
 * the amounts, and where the money goes: check `flow` and `dest_pinned` before fulfilling an order
 * (docs/WEBHOOKS.md), since anyone holding the `pk_` can make a P2P session of yours that pays them.
 */
export interface WebhookBody {
  event_type: string;
  session_id?: string;
  amount?: string | null;
  settled_amount?: string | null;
  overpaid_amount?: string | null;
  /** `checkout`, or a P2P flow (`p2p_request`, `p2p_send`, `stealth_request`) from a pk-tagged widget. */
  flow?: string;
  dest_address?: string | null;
  dest_chain_id?: number | null;
  /** The destination is one you had pinned (PUT /v1/destinations) when the session was created. */
  dest_pinned?: boolean;
  [field: string]: unknown;
}

export interface VerifyWebhookParameters {
  /** The request body exactly as received: raw bytes or their text, never re-serialised JSON. */
  payload: string | Uint8Array;
  /** The `Service-Signature` header as received (`t=<unix>,v1=<hex>[,v1=<hex>...]`). */
  header: string | null | undefined;
  /** The endpoint's `whsec_` secret, as the PUT answered it. */
  secret: string;
  /** How far `t` may be from now, in the past or the future. Default 300. */
  toleranceSeconds?: number;
  /** Now, in unix ms (tests); default the clock. */
  now?: number;
}
export type VerifyWebhookReturnType = WebhookBody;
export type VerifyWebhookErrorType = ClientError<"verification_failed">;

const encoder = new TextEncoder();

/**
 * Checks a webhook delivery and returns its body: the signature must be
 * hex(HMAC-SHA256(secret, t + "." + raw_body)) for one of the header's `v1` entries (several are
 * accepted, so a rotation can sign with both secrets), and `t` within `toleranceSeconds` of now.
 * The HMAC is compared by WebCrypto's `verify`, in constant time, so it runs the same in Node, a
 * browser or an edge runtime. Otherwise it rejects with a ClientError `verification_failed`.
 *
 * It is asynchronous (WebCrypto is): ALWAYS await it. Without `await` the call is a pending promise
 * and the code after it runs whether or not the signature is good, which accepts forgeries.
 *
 * @example
 * ```ts
 * const event = await verifyWebhook({
 *   payload: rawBody, // the bytes as received
 *   header: req.headers["service-signature"],
 *   secret: process.env.WEBHOOK_SECRET,
 * });
 * if (event.event_type === "payment.succeeded") markPaid(event.session_id);
 * ```
 */
export async function verifyWebhook(params: VerifyWebhookParameters): Promise<VerifyWebhookReturnType> {
  const { payload, header, secret } = params;
  const tolerance = params.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const { t, signatures } = parseHeader(header);
  const nowSeconds = Math.floor((params.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - t) > tolerance)
    throw refuse(`the signature's timestamp is more than ${tolerance} s from now`);
  if (!secret) throw refuse("no secret to verify with");

  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const body = typeof payload === "string" ? encoder.encode(payload) : payload;
  const signed = concat(encoder.encode(`${t}.`), body);
  for (const hex of signatures) {
    const mac = hexBytes(hex);
    if (mac && (await crypto.subtle.verify("HMAC", key, mac, signed))) return parseBody(body);
  }
  throw refuse("no v1 signature matches the payload");
}

function parseHeader(header: string | null | undefined): { t: number; signatures: string[] } {
  if (!header) throw refuse(`no ${SIGNATURE_HEADER} header`);
  let t: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === "t" && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (name === "v1") signatures.push(value);
  }
  if (t === null || signatures.length === 0)
    throw refuse(`the ${SIGNATURE_HEADER} header is not t=<unix>,v1=<hex>`);
  return { t, signatures };
}

/** 32 bytes from 64 hex digits; null for anything else (it cannot be a SHA-256 HMAC). */
function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function parseBody(body: Uint8Array): WebhookBody {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body));
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      typeof (parsed as WebhookBody).event_type === "string"
    )
      return parsed as WebhookBody;
  } catch {
    // falls through: signed, but not a body this library knows
  }
  throw refuse("the signed payload is not a webhook body (JSON with event_type)");
}

const refuse = (message: string) => new ClientError("verification_failed", message);
