import { createHash } from "node:crypto";
import type { PaymentSessionCreated, PaymentSessionObject } from "../api/payment-sessions.ts";
import type { CheckoutChains } from "../chains/checkout-chains.ts";
import type { CreateSession } from "../domain/commands.ts";
import { setupMissing } from "../domain/merchant/readiness.ts";
import type { AppFee, DestinationPin, StealthMeta } from "../domain/merchant/types.ts";
import type { StealthDestination } from "../domain/types.ts";
import type { SessionView } from "../domain/view.ts";
import type { SessionReadModel } from "../projections/read-model.ts";
import { stealthPins } from "../stealth/flow-d.ts";
import type { IdempotencyClaim, IdempotencyKeys } from "../store/idempotency-keys.ts";
import type { CheckoutResource } from "./auth.ts";
import { gatewayError, replyError } from "./errors.ts";
import { hashSecret, issueClientSecret, type KeyMode } from "./merchant-keys.ts";
import type { CommandPort } from "./ports.ts";
import { canonicalJson, uuidFrom } from "./routes/sessions.ts";
import type { StealthRegistry } from "./stealth-registry.ts";

/**
 * Merchant checkout sessions (POST /v1/payment_sessions, docs/MERCHANTS.md "Checkout"): a session
 * created by the merchant's server with the amount the payer owes and no burner. The widget
 * registers its burner later with the publishable key and the `cs_` client secret answered here
 * once (the session keeps only its SHA-256, like every secret of ours). The session takes the
 * merchant's app fee and a copy of its pinned destinations as they are now.
 */
export interface CheckoutSessions {
  /**
   * Without `idempotencyKey` every call creates a session (the interface's rule). With it, Stripe's
   * semantics for 24 hours: the same key and body answer the first answer, another body is 409.
   */
  create(input: {
    merchantId: string;
    amount: bigint;
    idempotencyKey?: string;
    /**
     * A Solana checkout (docs/SOLANA.md, "Merchant checkout on Solana"): the configured Solana chain's
     * id. The session is Solana-origin from its creation, its destination the merchant's pin for that
     * chain and its app fee's Solana sink the merchant's `app_fee_recipient_sol`, both as they are now.
     */
    solanaChainId?: number;
    /**
     * Flow D (docs/STEALTH.md): the destination is derived from the merchant's stealth meta-address,
     * one per scheme, and overrides its pinned addresses (the pins still choose the chain).
     */
    stealth?: boolean;
  }): Promise<PaymentSessionCreated>;
}

export interface CheckoutDeps {
  commands: CommandPort;
  settings: {
    destinations(merchantId: string): Promise<DestinationPin[]>;
    appFee(merchantId: string): Promise<AppFee>;
    stealthMeta(merchantId: string): Promise<StealthMeta | null>;
  };
  /** Which chains a checkout without a chain is paid on, and Flow D's schemes and destinations. */
  chains: CheckoutChains;
  /** Where a Flow D session's derived addresses are recorded (the withdrawals relay only for them). */
  stealthRegistry?: Pick<StealthRegistry, "record"> | undefined;
  /** Where Idempotency-Keys are claimed; without it a key is refused (no silent double creation). */
  idempotency?: IdempotencyKeys;
  mode: KeyMode;
  ttlSeconds: number;
  newId: () => string;
  /** Unix ms. */
  now: () => number;
}

export function createCheckoutSessions(deps: CheckoutDeps): CheckoutSessions {
  return {
    async create({ merchantId, amount, idempotencyKey, solanaChainId, stealth = false }) {
      const issuedAt = deps.now();
      let secret = issueClientSecret(deps.mode);
      let ids = { sessionId: deps.newId(), commandId: deps.newId() };
      let claim: IdempotencyClaim | null = null;
      if (idempotencyKey !== undefined) {
        if (!deps.idempotency) throw new Error("Idempotency-Key given but no idempotency store configured");
        const fingerprint = createHash("sha256")
          .update(
            canonicalJson({
              amount: amount.toString(),
              source_chain_id: solanaChainId,
              ...(stealth ? { stealth: true } : {}),
            }),
          )
          .digest("hex");
        claim = await deps.idempotency.claim(merchantId, idempotencyKey, {
          fingerprint,
          sessionId: ids.sessionId,
          clientSecret: secret.secret,
          createdAt: issuedAt,
        });
        if (claim.fingerprint !== fingerprint) throw gatewayError("idempotency_key_reused");
        if (claim.response !== null) return JSON.parse(claim.response) as PaymentSessionCreated;
        // The first request's session and secret: every request of the key sends the same command,
        // which the session's actor applies once and answers again for each retry.
        secret = { secret: claim.clientSecret, hash: hashSecret(claim.clientSecret) };
        ids = {
          sessionId: claim.sessionId,
          commandId: uuidFrom("payment_sessions.create/command", claim.sessionId),
        };
      }
      const [merchantPins, fee, meta] = await Promise.all([
        deps.settings.destinations(merchantId),
        deps.settings.appFee(merchantId),
        stealth ? deps.settings.stealthMeta(merchantId) : null,
      ]);
      // The chains this checkout can be paid on: its Solana chain, or every chain its burner serves.
      const payableChainIds = solanaChainId === undefined ? deps.chains.burnerChainIds : [solanaChainId];
      // A Flow D session is paid at a derived address on its own chain: it needs no pin.
      if (!stealth) {
        const pinnedChainIds = merchantPins.map((p) => p.sourceChainId);
        const missing = setupMissing({ pinnedChainIds, payableChainIds });
        if (missing !== null) throw gatewayError("merchant_not_ready", missing);
      }
      let pins = merchantPins;
      let stealthDestinations: StealthDestination[] | null = null;
      if (stealth) {
        if (meta === null) throw gatewayError("stealth_meta_missing");
        stealthDestinations = deps.chains.stealthDestinations(meta);
        pins = stealthPins(merchantPins, payableChainIds, deps.chains.stealthSchemeOf, stealthDestinations);
        if (!deps.stealthRegistry) throw new Error("Flow D needs the stealth address registry");
        // Recorded before the session exists: a withdrawal then finds it once it is paid.
        await deps.stealthRegistry.record(ids.sessionId, stealthDestinations);
      }
      const command: CreateSession = {
        type: "CreateSession",
        data: {
          sessionId: ids.sessionId,
          flow: "checkout",
          pinnedOnly: false,
          merchantId,
          burner: null,
          auth: null,
          // An EVM checkout's destination is the pin of the chain its deposit arrives on, at commit.
          ...(solanaChainId === undefined
            ? { destAddress: null, destChainId: null, originChainId: null, appFeeRecipientSol: null }
            : solanaOrigin(pins, fee, solanaChainId)),
          pinnedDestinations: pins,
          clientSecretHash: secret.hash,
          refundAddress: null,
          appFeeBps: fee.bps,
          appFeeRecipient: fee.recipient,
          standingRefund: null,
          stealth: null,
          stealthDestinations,
          expiresAt: Math.floor(issuedAt / 1000) + deps.ttlSeconds,
          expectedAmount: amount,
        },
        metadata: { commandId: ids.commandId, issuedAt, replyTo: null },
      };
      const reply = await deps.commands.send(command);
      const refused = replyError(reply);
      if (refused) throw refused;
      const session = reply.session?.session;
      if (session === undefined) throw new Error("the owner accepted CreateSession but sent no session");
      const created = { ...paymentSessionObject(session, deps.mode), client_secret: secret.secret };
      if (claim && idempotencyKey !== undefined)
        await deps.idempotency?.answered(
          claim,
          merchantId,
          idempotencyKey,
          JSON.stringify(created),
          deps.now(),
        );
      return created;
    },
  };
}

/**
 * A Solana checkout's origin, destination and app fee sink: its sweep pays the destination directly
 * (or the vault for an EVM one, paid by the fast fill), so it must be known before the payer signs.
 */
function solanaOrigin(pins: DestinationPin[], fee: AppFee, chainId: number) {
  const pin = pins.find((p) => p.sourceChainId === chainId);
  if (!pin)
    throw gatewayError(
      "no_destination",
      `source_chain_id: the merchant has pinned no destination for chain ${chainId} (PUT /v1/destinations)`,
    );
  // The session core refuses an app fee above 0 without a Solana sink (app_fee_sink_missing).
  return {
    destAddress: pin.destAddress,
    destChainId: pin.destChainId,
    originChainId: chainId,
    appFeeRecipientSol: fee.recipientSol,
  };
}

/**
 * A checkout session: the merchant's, created through POST /v1/payment_sessions, guarded by its
 * client secret. A P2P request made through a pk-tagged widget is the merchant's too (its webhooks
 * fire) but has no client secret: it stays as open as an anonymous one.
 */
export const isCheckoutSession = (s: Pick<SessionView, "merchant_id" | "flow">): boolean =>
  s.merchant_id !== null && s.flow === "checkout";

/** A checkout session as the merchant API shows it. */
export function paymentSessionObject(session: SessionView, mode: KeyMode): PaymentSessionObject {
  return {
    id: session.id,
    object: "payment_session",
    status: session.status,
    amount: session.expected_amount ?? "0",
    currency: "usdc",
    merchant_id: session.merchant_id ?? "",
    app_fee_bps: session.app_fee_bps,
    app_fee_recipient: session.app_fee_recipient,
    expires_at: session.expires_at,
    livemode: mode === "live",
    session,
  };
}

/**
 * What the checkout guards check a session against: its merchant and the hash of its client secret,
 * from the read model's state. The gateway hands a read model that waits for the projector when the
 * session exists but its row is not written yet (storedWhenProjected, src/projections/session-reads.ts).
 */
export function checkoutResources(readModel: Pick<SessionReadModel, "get">) {
  return async (sessionId: string): Promise<CheckoutResource | null> => {
    const stored = await readModel.get(sessionId);
    if (!stored) return null;
    const { merchantId, clientSecretHash, appFeeRecipient } = stored.state;
    return { merchantId, clientSecretHash, appFeeRecipient };
  };
}
