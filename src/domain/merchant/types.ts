/**
 * The merchant entity's records: a merchant's configuration is event-sourced like a session's
 * (merchant.commands -> merchant.events, keyed by merchant id). These types are the wire records'
 * TypeScript types too (src/records/merchant-*.ts are checked against them both ways). Keys arrive here
 * already hashed: a secret key never reaches a command, an event or a state, only its SHA-256.
 */

import type { Address, ChainAddress } from "../types.ts";

export type KeyKind = "publishable" | "secret";
export const KEY_KINDS = ["publishable", "secret"] as const satisfies readonly KeyKind[];

/** A key as the journal knows it. */
export interface IssuedKey {
  keyId: string;
  kind: KeyKind;
  /** SHA-256 of the whole key string, lowercase hex: what a request's key is looked up by. */
  hash: string;
  /** The publishable key itself (not secret, shown in the merchant record); null for a secret key. */
  publishable: string | null;
  /** The key's last four characters, so a merchant can tell keys apart without the secret. */
  hint: string;
}

/**
 * A webhook endpoint as set. `secret` is null in every record written now: the gateway keeps the
 * signing secret in its own table (webhook_endpoint_secrets), because merchant.events is read by
 * consumers outside the service and kept forever. Records of an earlier version carry it in clear,
 * and the projection still takes it from them.
 */
export interface WebhookEndpointData {
  endpointId: string;
  url: string;
  secret: string | null;
}

/**
 * Where a checkout session's money goes when its deposit is found on `sourceChainId` (PUT
 * /v1/destinations): one per source chain, a new pin replacing the old.
 */
export interface DestinationPin {
  sourceChainId: number;
  destAddress: string;
  destChainId: number;
}

/** The app fee the merchant's checkout sessions carry into their Intents (PUT /v1/app_fee). */
export interface AppFee {
  bps: number;
  /** Lower-case 0x address: the EVM fee sink the Intent names. */
  recipient: Address;
  /** Base58: where a Solana sweep pays the app fee (docs/SOLANA.md); null when unset. */
  recipientSol: ChainAddress | null;
}

/**
 * The merchant's settings (PUT /v1/settings), set as a whole. A P2P session made with the merchant's
 * `pk_` is the merchant's, yet its creator names the destination: with `p2pPinnedDestinationsOnly`
 * the gateway creates one only to the destination pinned for the burner's chain.
 */
export interface MerchantSettings {
  p2pPinnedDestinationsOnly: boolean;
}

/**
 * The merchant's stealth meta-address (PUT /v1/stealth-meta, docs/STEALTH.md): the public keys Flow D
 * sessions derive a fresh destination from. The gateway has checked every key is a point of its curve.
 */
export interface StealthMeta {
  /** ERC-5564 scheme 1: compressed secp256k1 points, lower-case 0x hex (33 bytes each). */
  spendPubkey: `0x${string}`;
  viewPubkey: `0x${string}`;
  /** The Solana scheme's ed25519 keys (base58); null when the merchant registered none. */
  solSpendPubkey: ChainAddress | null;
  solViewPubkey: ChainAddress | null;
}

/** A merchant that never set its settings has these. */
export const DEFAULT_MERCHANT_SETTINGS: MerchantSettings = { p2pPinnedDestinationsOnly: false };

export interface ReplyTo {
  gatewayId: string;
  correlationId: string;
}

export interface MerchantCommandMetadata {
  /** Idempotency key: a command id already applied is accepted again with no new events. */
  commandId: string;
  /** Unix ms; becomes the events' occurredAt (the decider reads no clock). */
  issuedAt: number;
  replyTo: ReplyTo | null;
}

type Command<T extends string, D> = {
  type: T;
  data: { merchantId: string } & D;
  metadata: MerchantCommandMetadata;
};

/** The wire record's `{ type, data, metadata }` form (src/record-fields/unions.ts `message`), as sessions. */
export type MerchantCommand =
  /** `secret`: the whsec_ signing secret the gateway generated for this PUT (null in old records). */
  | Command<"SetWebhookEndpoint", WebhookEndpointData>
  | Command<"RemoveWebhookEndpoint", Record<never, never>>
  | Command<"CreateMerchant", { name: string; email: string; keys: IssuedKey[] }>
  | Command<"IssueKeys", { keys: IssuedKey[] }>
  /**
   * Revokes every active key of the new key's kind and issues it: a roll. `replaces`: the key the
   * roll was asked with; refused (key_revoked) when it is no longer active, so of two concurrent
   * rolls with one key, one wins. Null: whatever is active (the operator).
   */
  | Command<"RotateKey", { key: IssuedKey; replaces: string | null }>
  | Command<"RevokeKey", { keyId: string }>
  | Command<"PinDestination", DestinationPin>
  | Command<"SetAppFee", AppFee>
  | Command<"SetSettings", MerchantSettings>
  | Command<"SetStealthMeta", StealthMeta>;

export interface MerchantEventMetadata {
  merchantId: string;
  /** The merchant's version after this event: 1, then +1 per event, without gaps. */
  version: number;
  /** Unix ms: the issuedAt of the command that caused the event. */
  occurredAt: number;
  commandId: string;
}

type Event<T extends string, D> = { type: T; data: D; metadata: MerchantEventMetadata };

export type MerchantEvent =
  | Event<"WebhookEndpointSet", WebhookEndpointData>
  | Event<"WebhookEndpointRemoved", Record<never, never>>
  | Event<"MerchantCreated", { name: string; email: string }>
  | Event<"KeyIssued", IssuedKey>
  /** `hash` names the key for the projection, which looks keys up by hash. */
  | Event<"KeyRevoked", { keyId: string; hash: string }>
  | Event<"DestinationPinned", DestinationPin>
  | Event<"AppFeeSet", AppFee>
  | Event<"SettingsSet", MerchantSettings>
  | Event<"StealthMetaSet", StealthMeta>;

/** An event before the decider numbers it. */
export type MerchantEventBody = MerchantEvent extends infer E
  ? E extends { type: infer T; data: infer D }
    ? { type: T; data: D }
    : never
  : never;

export interface MerchantKey extends IssuedKey {
  /** Unix ms. */
  createdAt: number;
  /** Unix ms, or null while the key is active. */
  revokedAt: number | null;
}

export interface Merchant {
  id: string;
  version: number;
  name: string;
  email: string;
  /** Unix ms. */
  createdAt: number;
  keys: MerchantKey[];
  webhookEndpoint: { endpointId: string; url: string } | null;
  /** One per source chain, in the order first pinned. */
  destinations: DestinationPin[];
  /** null: the merchant's checkout sessions carry no app fee. */
  appFee: AppFee | null;
  /** Absent in states snapshotted before settings existed: DEFAULT_MERCHANT_SETTINGS. */
  settings?: MerchantSettings;
  /** Absent in states snapshotted before stealth existed, and null until set: no Flow D sessions. */
  stealthMeta?: StealthMeta | null;
  /** The last command ids applied, newest last: a retried command is recognised and not applied twice. */
  recent: string[];
}

/** null: no merchant with this id exists yet. */
export type MerchantState = Merchant | null;

/** What a merchant decision sends: the answer to a waiting gateway (or the CLI). */
export interface MerchantReply {
  type: "Reply";
  data: { replyTo: ReplyTo; rejection: { code: MerchantRejectionCode; message: string } | null };
}

export type MerchantRejectionCode =
  | "merchant_exists"
  | "merchant_not_found"
  | "key_not_found"
  | "key_revoked";

/** Generic messages, as the interface asks for conflicts (nothing about another merchant leaks). */
export const MERCHANT_REJECTION_MESSAGES: Record<MerchantRejectionCode, string> = {
  merchant_exists: "conflict",
  merchant_not_found: "no such merchant",
  key_not_found: "no such key",
  key_revoked: "revoked key",
};
