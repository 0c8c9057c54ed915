/**
 * The subscription entity's records: a payer-signed mandate registered by a merchant and charged once
 * per period by the owning actor's timer (subscription.commands -> subscription.events, keyed by
 * subscription id). These types are the wire records' TypeScript types too
 * (src/records/subscription-*.ts are checked against them both ways). No bigints: the amount is
 * a decimal string, so states are plain JSON.
 */
import type { ReplyTo } from "../merchant/types.ts";
import type { Address, Hex } from "../types.ts";

export type { ReplyTo };

/** The spec's limit: at most this many charge attempts per period. */
export const MAX_CHARGE_ATTEMPTS = 3;

/** The EIP-712 Mandate as signed (src/chains/evm/subscriptions/subscriptions.ts), in the records' spelling. */
export interface Mandate {
  payer: Address;
  token: Address;
  /** Base units per period, decimal digits. */
  amount: string;
  /** Seconds. */
  period: number;
  /** Unix seconds at which period 0 starts; period i starts at start + i * period. */
  start: number;
  /** Where the rest of each charge goes (the mandate's `merchant` field). */
  merchantAddress: Address;
  appFeeBps: number;
  appFeeRecipient: Address;
  salt: Hex;
}

/** Who canceled: the merchant API, the payer's gasless relay, or a Canceled log mirrored from the chain. */
export type CancelSource = "merchant" | "payer" | "chain";
export const CANCEL_SOURCES = ["merchant", "payer", "chain"] as const satisfies readonly CancelSource[];

/** What a registration fixes for the subscription's life. */
export interface SubscriptionTerms {
  merchantId: string;
  chainId: number;
  /** The SubscriptionManager the mandate was signed for (its EIP-712 verifyingContract). */
  manager: Address;
  digest: Hex;
  mandate: Mandate;
  signature: Hex;
  /** The platform fee in basis points, fixed at creation. */
  feeBps: number;
}

export interface SubscriptionCommandMetadata {
  /** Idempotency key: a command id already applied is accepted again with no new events. */
  commandId: string;
  /** Unix ms; becomes the events' occurredAt (the decider reads no clock). */
  issuedAt: number;
  replyTo: ReplyTo | null;
}

type Command<T extends string, D> = {
  type: T;
  data: { subscriptionId: string } & D;
  metadata: SubscriptionCommandMetadata;
};

export type SubscriptionCommand =
  /** The gateway checked the signature; the id is derived from `digest`, so a second one is a 409. */
  | Command<"CreateSubscription", SubscriptionTerms>
  /**
   * `merchantId`: the merchant asking (merchant path), refused as not found when it is not the owner;
   * null for the payer and chain paths. `signature`: the payer's Cancel (payer path). `txHash`: the
   * transaction that canceled on chain (chain path).
   */
  | Command<
      "CancelSubscription",
      { source: CancelSource; merchantId: string | null; signature: Hex | null; txHash: Hex | null }
    >
  /** The timer: whatever period is current at `now` (unix ms) is charged if it is due. */
  | Command<"ChargeDue", { now: number }>
  /** What the executor made of a charge attempt. */
  | Command<
      "RecordChargeResult",
      {
        periodIndex: number;
        attempt: number;
        txHash: Hex | null;
        /** null: the charge confirmed; otherwise why the attempt failed. */
        errorMessage: string | null;
      }
    >;

export interface SubscriptionEventMetadata {
  subscriptionId: string;
  /** The subscription's version after this event: 1, then +1 per event, without gaps. */
  version: number;
  /** Unix ms: the issuedAt of the command that caused the event. */
  occurredAt: number;
  commandId: string;
}

type Event<T extends string, D> = { type: T; data: D; metadata: SubscriptionEventMetadata };

export type SubscriptionEvent =
  | Event<"SubscriptionCreated", SubscriptionTerms>
  /** Attempt `attempt` (1..3) of period `periodIndex` was handed to the executor. */
  | Event<"ChargeRequested", { periodIndex: number; attempt: number }>
  | Event<"SubscriptionCharged", { periodIndex: number; attempt: number; txHash: Hex }>
  | Event<"ChargeFailed", { periodIndex: number; attempt: number; errorMessage: string; txHash: Hex | null }>
  | Event<"SubscriptionCanceled", { source: CancelSource; signature: Hex | null; txHash: Hex | null }>;

export type SubscriptionEventBody = SubscriptionEvent extends infer E
  ? E extends { type: infer T; data: infer D }
    ? { type: T; data: D }
    : never
  : never;

export type SubscriptionStatus = "active" | "canceled";

export interface Subscription extends SubscriptionTerms {
  id: string;
  version: number;
  /** Unix ms. */
  createdAt: number;
  status: SubscriptionStatus;
  canceledAt: number | null;
  canceledBy: CancelSource | null;
  /** The period being (or last) worked on, and how its attempts went. */
  periodIndex: number;
  attempts: number;
  /** An attempt is with the executor: nothing else is sent until its result. */
  inFlight: boolean;
  /** The newest period charged, or -1. */
  lastChargedPeriod: number;
  /** Unix ms before which a failed period is not retried. */
  retryAt: number;
  /** The last command ids applied, newest last. */
  recent: string[];
}

export type SubscriptionState = Subscription | null;

/** The webhook a decision sends, in the shape of the WebhookEvent record (src/domain/webhooks.ts). */
export interface SubscriptionWebhook {
  type: "Webhook";
  data: {
    merchantId: string;
    eventType: SubscriptionWebhookType;
    idempotencyKey: string;
    createdAt: number;
    body: Record<string, string | number | null>;
  };
}

export type SubscriptionWebhookType =
  | "subscription.created"
  | "subscription.charged"
  | "subscription.charge_failed"
  | "subscription.canceled";

export interface SubscriptionReply {
  type: "Reply";
  data: { replyTo: ReplyTo; rejection: { code: SubscriptionRejectionCode; message: string } | null };
}

/** Work on the SubscriptionManager for the chain's relayer (executor.commands). */
interface ManagerWork {
  subscriptionId: string;
  /** Unique per piece of work: the executor submits each at most once. */
  commandId: string;
  chainId: number;
  manager: Address;
  mandate: Mandate;
  /** The payer's signature: of the Mandate for a charge, of the Cancel for a relayed cancel. */
  signature: Hex;
}

/** A charge for the executor: one attempt of one period, with everything the contract call needs. */
export interface SubscriptionChargeWork {
  type: "Charge";
  data: ManagerWork & { periodIndex: number; attempt: number; feeBps: number };
}

/** The payer's signed Cancel, for the executor to relay on chain (cancelBySig): the gasless cancel. */
export interface SubscriptionCancelRelay {
  type: "RelayCancel";
  data: ManagerWork;
}

export type SubscriptionMessage =
  | SubscriptionReply
  | SubscriptionWebhook
  | SubscriptionChargeWork
  | SubscriptionCancelRelay;

export type SubscriptionRejectionCode = "subscription_exists" | "subscription_not_found";

export const SUBSCRIPTION_REJECTION_MESSAGES: Record<SubscriptionRejectionCode, string> = {
  subscription_exists: "a subscription with this mandate exists",
  subscription_not_found: "no such subscription",
};
