import type { FastifyInstance, FastifyRequest } from "fastify";
import type { KeyKind } from "../domain/merchant/types.ts";
import type { KeyByHash } from "../store/merchants.ts";
import { type GatewayError, gatewayError } from "./errors.ts";
import { hashSecret, type KeyMode, keyPrefix, type SecretPrefix, sameHash } from "./merchant-keys.ts";

/**
 * The merchant-mode guards, exactly as the interface's Authentication table says:
 *
 * - `/v1/*`: a secret key, `Authorization: Bearer sk_...`;
 * - checkout register, commit and quote: `Authorization: Bearer pk_...` plus `X-Client-Secret: cs_...`
 *   (the checkout event stream: the same two as query parameters `pk` and `client_secret`);
 * - 401 with `WWW-Authenticate: Bearer` for a missing, malformed, unknown, revoked or wrong-type key;
 *   403 for a valid key that does not own the resource; 404 for another merchant's resource.
 *
 * A key is looked up by its SHA-256 (never by the key itself) and the found row's hash is compared
 * timing-safe. Nothing is cached: a revocation holds from the request after it is answered.
 */

export interface KeyLookup {
  keyByHash(hash: string): Promise<KeyByHash | null>;
}

/** Who a request authenticated as. */
export interface Principal {
  merchantId: string;
  keyId: string;
  kind: KeyKind;
}

/** What a checkout guard needs of the session it guards. */
export interface CheckoutResource {
  /** null for an anonymous session. */
  merchantId: string | null;
  /** SHA-256 of the session's client secret (hashSecret), null when it has none. */
  clientSecretHash: string | null;
  /** The session's app fee sink (EVM), which no burner may be; absent where it is not read. */
  appFeeRecipient?: string | undefined;
}

export interface Guards {
  /** `/v1/*`: the request's secret key. */
  secretKey(request: FastifyRequest): Promise<Principal>;
  /** A pk-tagged widget's POST /sessions: the request's publishable key. */
  publishableKey(request: FastifyRequest): Promise<Principal>;
  /** Checkout register, commit and quote: `Authorization: Bearer pk_` and `X-Client-Secret: cs_`. */
  checkout(request: FastifyRequest, session: CheckoutResource | null): Promise<Principal>;
  /** The checkout event stream: `?pk=` and `?client_secret=`. */
  checkoutStream(
    query: { pk?: string | undefined; client_secret?: string | undefined },
    session: CheckoutResource | null,
  ): Promise<Principal>;
}

const KIND_OF: Partial<Record<SecretPrefix, KeyKind>> = { pk: "publishable", sk: "secret" };

/** 401 with the header the interface asks for; the message says which of the four it was. */
export const unauthorized = (message: string): GatewayError =>
  gatewayError("unauthorized", message, { headers: { "www-authenticate": "Bearer" } });

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive), or null. */
export function bearerToken(header: string | undefined): string | null {
  const m = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  return m ? (m[1] as string) : null;
}

export function createGuards(deps: { keys: KeyLookup; mode: KeyMode }): Guards {
  /** The active key of `kind` that `token` is, or a 401. */
  async function key(token: string | null | undefined, kind: KeyKind): Promise<Principal> {
    if (!token) return Promise.reject(unauthorized(`missing ${prefixOf(kind)} key`));
    const prefix = keyPrefix(token, deps.mode);
    if (prefix === null) throw unauthorized("malformed key");
    if (KIND_OF[prefix] !== kind)
      throw unauthorized(`wrong key type: this route needs a ${prefixOf(kind)} key`);
    const hash = hashSecret(token);
    const found = await deps.keys.keyByHash(hash);
    // The lookup matched by hash already; the comparison keeps a timing-safe step between the
    // presented key and what is stored, whatever the store's index does.
    if (!found || !sameHash(found.hash, hash) || found.kind !== kind) throw unauthorized("invalid key");
    if (found.revokedAt !== null) throw unauthorized("revoked key");
    return { merchantId: found.merchantId, keyId: found.keyId, kind };
  }

  async function checkout(
    pk: string | null | undefined,
    cs: string | undefined,
    session: CheckoutResource | null,
  ) {
    const principal = await key(pk, "publishable");
    if (!cs) throw unauthorized("missing client secret");
    if (keyPrefix(cs, deps.mode) !== "cs") throw unauthorized("malformed client secret");
    // Another merchant's session, or no merchant's: not found, so existence cannot be probed.
    if (!session || session.merchantId !== principal.merchantId) throw gatewayError("session_not_found");
    if (!session.clientSecretHash || !sameHash(session.clientSecretHash, hashSecret(cs)))
      throw gatewayError("forbidden", "the client secret is not this session's");
    return principal;
  }

  return {
    secretKey: (request) => key(bearerToken(request.headers.authorization), "secret"),
    publishableKey: (request) => key(bearerToken(request.headers.authorization), "publishable"),
    checkout: (request, session) => {
      const cs = request.headers["x-client-secret"];
      return checkout(
        bearerToken(request.headers.authorization),
        typeof cs === "string" ? cs : undefined,
        session,
      );
    },
    checkoutStream: (query, session) => checkout(query.pk, query.client_secret, session),
  };
}

const prefixOf = (kind: KeyKind) => (kind === "secret" ? "sk_" : "pk_");

/**
 * The operator secret, compared timing-safe through hashes of equal length (a plain comparison
 * would tell how many leading characters were right).
 */
export function operatorGuard(secret: string) {
  const expected = hashSecret(secret);
  return (request: FastifyRequest): void => {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw unauthorized("missing operator secret");
    if (!sameHash(hashSecret(token), expected)) throw unauthorized("invalid operator secret");
  };
}

/**
 * Puts every route of `app` (a plugin's scope) under the secret key, checked on request before the
 * body is parsed or validated: a caller without a valid key learns nothing about a route's body
 * (401 comes first). Answers each request's principal.
 */
export function requireSecretKey(
  app: FastifyInstance,
  guards: Guards,
): (request: FastifyRequest) => Principal {
  const principals = new WeakMap<FastifyRequest, Principal>();
  app.addHook("onRequest", async (request) => {
    principals.set(request, await guards.secretKey(request));
  });
  return (request) => {
    const principal = principals.get(request);
    if (!principal) throw new Error("secret-key route reached without its guard");
    return principal;
  };
}
