import { randomUUID } from "node:crypto";
import type { Address, Hex } from "viem";
import type { GatewaySubscriptions, MandateTerms as MandateMessage } from "../../chains/adapter.ts";
import { subscriptionIdFromDigest } from "../../domain/subscription/id.ts";
import { chargeDueAt } from "../../domain/subscription/periods.ts";
import type {
  Mandate,
  Subscription,
  SubscriptionCommand,
  SubscriptionRejectionCode,
} from "../../domain/subscription/types.ts";
import type { GatewayReply } from "../../records/gateway-replies.ts";
import type { SubscriptionStore } from "../../store/subscriptions.ts";
import { TerminalError } from "../../support/errors.ts";
import { ReplyTimeoutError } from "../ports.ts";

/**
 * What the subscription routes do: check the payer's signature (the chain's adapter: it must
 * recover to the payer), send the command to the owning actor, and answer once the projection shows
 * the change, so a GET right after an answer sees it.
 */
export interface SubscriptionAdminDeps {
  /** Sends a command to the owning subscription actor and waits (bounded) for its reply. */
  send(command: SubscriptionCommand): Promise<GatewayReply>;
  store: SubscriptionStore;
  /** The subscription side of each chain that has a SubscriptionManager, by chain id (its adapter's). */
  chains: ReadonlyMap<number, GatewaySubscriptions>;
  /** The platform fee fixed into each new subscription (PLATFORM_FEE_BPS). */
  feeBps: number;
  /** How long to wait for the projection to show an accepted change (then ReplyTimeoutError). */
  timeoutMs: number;
  now?: () => number;
}

export type SubscriptionProblem =
  | SubscriptionRejectionCode
  | "chain_unsupported"
  | "mandate_invalid"
  | "mandate_signature_invalid"
  | "cancel_signature_invalid";

/** A request the subscription routes refuse; its code is one of the gateway's registered errors. */
export class SubscriptionRefusedError extends TerminalError<SubscriptionProblem> {
  override name = "SubscriptionRefusedError";
}

export interface SubscriptionAdmin {
  register(input: {
    merchantId: string;
    chainId: number;
    mandate: MandateMessage;
    signature: Hex;
  }): Promise<SubscriptionView>;
  /** null for an unknown id and for another merchant's subscription (404 either way). */
  view(merchantId: string, id: string): Promise<SubscriptionView | null>;
  cancelByMerchant(merchantId: string, id: string): Promise<SubscriptionView>;
  /** The payer's gasless cancel: `signature` is its EIP-712 Cancel over the mandate digest. */
  cancelByPayer(id: string, signature: Hex): Promise<SubscriptionView>;
}

export function createSubscriptionAdmin(deps: SubscriptionAdminDeps): SubscriptionAdmin {
  const now = deps.now ?? Date.now;
  const refuse = (code: SubscriptionProblem, message: string) => new SubscriptionRefusedError(code, message);
  const send = async (subscriptionId: string, body: Omit<SubscriptionCommand, "metadata">) => {
    const command = {
      ...body,
      data: { ...body.data, subscriptionId },
      metadata: { commandId: randomUUID(), issuedAt: now(), replyTo: null },
    } as SubscriptionCommand;
    const reply = await deps.send(command);
    if (reply.code !== null)
      throw refuse(reply.code as SubscriptionRejectionCode, reply.message ?? reply.code);
  };
  const waitFor = async (id: string, done: (s: Subscription) => boolean): Promise<Subscription> => {
    const deadline = now() + deps.timeoutMs;
    for (;;) {
      const s = await deps.store.get(id);
      if (s && done(s)) return s;
      if (now() > deadline)
        throw new ReplyTimeoutError("the subscription projection did not show the change in time");
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const cancel = async (s: Subscription, command: Omit<SubscriptionCommand, "metadata">) => {
    await send(s.id, command);
    return subscriptionView(await waitFor(s.id, (x) => x.status === "canceled"));
  };

  return {
    async register({ merchantId, chainId, mandate, signature }) {
      const chain = deps.chains.get(chainId);
      if (!chain) throw refuse("chain_unsupported", `chain ${chainId} has no subscription manager`);
      const { manager } = chain;
      checkMandate(mandate, deps.feeBps, refuse);
      if (!(await chain.mandateSigned(mandate, signature)))
        throw refuse("mandate_signature_invalid", "the signature does not recover to the mandate's payer");
      const digest = chain.mandateDigest(mandate);
      const id = subscriptionIdFromDigest(digest);
      await send(id, {
        type: "CreateSubscription",
        data: {
          subscriptionId: id,
          merchantId,
          chainId,
          manager: manager.toLowerCase() as Address,
          digest,
          mandate: toDomainMandate(mandate),
          signature,
          feeBps: deps.feeBps,
        },
      });
      return subscriptionView(await waitFor(id, () => true));
    },
    async view(merchantId, id) {
      const s = await deps.store.get(id);
      return s && s.merchantId === merchantId ? subscriptionView(s) : null;
    },
    async cancelByMerchant(merchantId, id) {
      const s = await deps.store.get(id);
      if (!s || s.merchantId !== merchantId) throw refuse("subscription_not_found", "no such subscription");
      return cancel(s, {
        type: "CancelSubscription",
        data: { subscriptionId: id, source: "merchant", merchantId, signature: null, txHash: null },
      });
    },
    async cancelByPayer(id, signature) {
      const s = await deps.store.get(id);
      if (!s) throw refuse("subscription_not_found", "no such subscription");
      // The manager the mandate was signed for, as recorded: the Cancel names the same domain.
      const chain = deps.chains.get(s.chainId);
      if (!chain) throw refuse("chain_unsupported", `chain ${s.chainId} has no subscription manager`);
      if (!(await chain.cancelSigned(s.mandate.payer, s.manager, s.digest, signature)))
        throw refuse(
          "cancel_signature_invalid",
          "the signature is not the payer's Cancel of this subscription",
        );
      return cancel(s, {
        type: "CancelSubscription",
        data: { subscriptionId: id, source: "payer", merchantId: null, signature, txHash: null },
      });
    },
  };
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** What the contract would refuse at every charge, refused now instead (400, saying which rule). */
function checkMandate(
  m: MandateMessage,
  feeBps: number,
  refuse: (code: SubscriptionProblem, message: string) => Error,
): void {
  const problem =
    m.amount <= 0n
      ? "amount must be above 0"
      : m.period <= 0n
        ? "period must be at least 1 second"
        : m.merchant.toLowerCase() === ZERO_ADDRESS
          ? "merchant must not be the zero address"
          : m.appFeeBps > 0 && m.appFeeRecipient.toLowerCase() === ZERO_ADDRESS
            ? "app_fee_recipient must be set when app_fee_bps is above 0"
            : m.appFeeBps + feeBps > 10_000
              ? `app_fee_bps plus the platform fee (${feeBps}) must not exceed 10000`
              : null;
  if (problem) throw refuse("mandate_invalid", problem);
}

/** The signed mandate as the subscription's records keep it (addresses lower case, numbers as the records spell them). */
export function toDomainMandate(m: MandateMessage): Mandate {
  return {
    payer: m.payer.toLowerCase() as Address,
    token: m.token.toLowerCase() as Address,
    amount: m.amount.toString(),
    period: Number(m.period),
    start: Number(m.start),
    merchantAddress: m.merchant.toLowerCase() as Address,
    appFeeBps: m.appFeeBps,
    appFeeRecipient: m.appFeeRecipient.toLowerCase() as Address,
    salt: m.salt,
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The subscription as the API shows it (docs/SUBSCRIPTIONS.md). */
export function subscriptionView(s: Subscription) {
  const m = s.mandate;
  return {
    id: s.id,
    object: "subscription" as const,
    status: s.status,
    chain_id: s.chainId,
    manager: s.manager,
    digest: s.digest,
    mandate: {
      payer: m.payer,
      token: m.token,
      amount: m.amount,
      period: m.period,
      start: m.start,
      merchant: m.merchantAddress,
      app_fee_bps: m.appFeeBps,
      app_fee_recipient: m.appFeeRecipient,
      salt: m.salt,
    },
    fee_bps: s.feeBps,
    created_at: new Date(s.createdAt).toISOString(),
    canceled_at: iso(s.canceledAt),
    canceled_by: s.canceledBy,
    last_charged_period: s.lastChargedPeriod < 0 ? null : s.lastChargedPeriod,
    next_charge_at: iso(chargeDueAt(s)),
  };
}
export type SubscriptionView = ReturnType<typeof subscriptionView>;
