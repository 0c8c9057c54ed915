import { randomUUID } from "node:crypto";
import {
  type AppFee,
  DEFAULT_MERCHANT_SETTINGS,
  type DestinationPin,
  type KeyKind,
  MERCHANT_REJECTION_MESSAGES,
  type MerchantRejectionCode,
  type MerchantSettings,
} from "../../domain/merchant/types.ts";
import type { MerchantEmails } from "../../store/merchant-emails.ts";
import type { KeyRow, MerchantRow, MerchantStore } from "../../store/merchants.ts";
import type { WebhookEndpointRow } from "../../store/webhook-endpoints.ts";
import { newWebhookSecret } from "../../webhooks/signing.ts";
import { issueKey, type KeyMode, legacyMerchantId, newMerchantId, normalizeEmail } from "../merchant-keys.ts";
import { ReplyTimeoutError } from "../ports.ts";
import { type MerchantCommandDeps, MerchantRefusedError, merchantCommands } from "./merchant-commands.ts";
import { createStealthMetaAdmin, type StealthMetaAdmin } from "./stealth-meta-admin.ts";

/**
 * What the CLI and the operator and merchant routes do to a merchant: generate the keys here (the
 * one place a key exists in clear), send the command with only their hashes, and answer once the
 * projection shows the change, so a key handed out works on the next request and a revoked one
 * fails on it. A key is shown once: nothing can show it again, a lost key is rolled.
 */
export interface MerchantAdminDeps extends MerchantCommandDeps {
  store: MerchantStore;
  /** Which merchant holds an e-mail address: what keeps e-mails unique now that ids are random. */
  emails: MerchantEmails;
  /** The webhook endpoint projection (src/store/webhook-endpoints.ts): what the webhooks worker reads. */
  endpoints: {
    get(merchantId: string): Promise<WebhookEndpointRow | null>;
    putSecret(merchantId: string, endpointId: string, secret: string): Promise<void>;
  };
  mode: KeyMode;
}

const refused = (code: MerchantRejectionCode) =>
  new MerchantRefusedError(code, MERCHANT_REJECTION_MESSAGES[code]);

export interface MerchantAdmin {
  create(input: { name: string; email: string }): Promise<{
    merchant: MerchantView;
    publishableKey: string;
    secretKey: string;
  }>;
  /**
   * Revokes every active key of `kind` and issues a new one; answers the new key, once. `replaces`:
   * the key the roll was asked with, refused (key_revoked) once it is no longer active.
   */
  roll(merchantId: string, kind: KeyKind, replaces?: string | null): Promise<{ keyId: string; key: string }>;
  revoke(merchantId: string, keyId: string): Promise<void>;
  view(merchantId: string): Promise<MerchantView | null>;
}

/** The merchant's webhook endpoint (PUT/GET/DELETE /v1/webhook_endpoints), on the same actor. */
export interface WebhookEndpointAdmin {
  /**
   * Sets (or replaces) the merchant's one webhook endpoint with a new id and a new `whsec_` secret,
   * answered here once. `url` must be checked against SSRF already. Answers once the projection
   * shows it (or a later set: of two concurrent PUTs the one the actor applied last stays).
   */
  setWebhookEndpoint(merchantId: string, url: string): Promise<WebhookEndpointSecretView>;
  /** The endpoint without its secret, or null. */
  webhookEndpoint(merchantId: string): Promise<WebhookEndpointView | null>;
  /** Removes the endpoint; false when there was none. Answers once the projection no longer shows it. */
  removeWebhookEndpoint(merchantId: string): Promise<boolean>;
}

/**
 * What a merchant's sessions take from it (PUT /v1/destinations, /v1/app_fee, /v1/settings), on the
 * same actor. Each answers once the projection shows the change (or a later one of the same kind).
 */
export interface MerchantSettingsAdmin extends StealthMetaAdmin {
  pinDestination(merchantId: string, pin: DestinationPin): Promise<DestinationPin[]>;
  destinations(merchantId: string): Promise<DestinationPin[]>;
  setAppFee(merchantId: string, fee: AppFee): Promise<AppFee>;
  /** The merchant's app fee; none set: 0 bps to the zero address. */
  appFee(merchantId: string): Promise<AppFee>;
  /** Sets the merchant's settings (PUT /v1/settings), as a whole. */
  setSettings(merchantId: string, settings: MerchantSettings): Promise<MerchantSettings>;
  /** The merchant's settings; never set: DEFAULT_MERCHANT_SETTINGS. */
  settings(merchantId: string): Promise<MerchantSettings>;
}

export const NO_APP_FEE: AppFee = {
  bps: 0,
  recipient: "0x0000000000000000000000000000000000000000",
  recipientSol: null,
};

export function createMerchantAdmin(
  deps: MerchantAdminDeps,
): MerchantAdmin & WebhookEndpointAdmin & MerchantSettingsAdmin {
  const commands = merchantCommands(deps);
  const { now, send, waitFor } = commands;
  const active = async (hash: string) => (await deps.store.keyByHash(hash))?.revokedAt === null;

  const view = async (merchantId: string) => {
    const row = await deps.store.merchant(merchantId);
    return row && merchantView(row, await deps.store.keysOf(merchantId), deps.mode);
  };

  return {
    ...createStealthMetaAdmin({ ...commands, store: deps.store }),
    async create({ name, email }) {
      const address = normalizeEmail(email);
      // A merchant from before random ids holds its e-mail by its id, which was derived from it.
      if (await deps.store.merchant(legacyMerchantId(address)))
        throw new MerchantRefusedError("merchant_exists", MERCHANT_REJECTION_MESSAGES.merchant_exists);
      // The first creation with this address claims it; every later one goes to the holder's actor,
      // which refuses it (merchant_exists) once the merchant exists, and creates it if the holder's
      // own CreateMerchant never arrived, so an interrupted creation can be retried.
      const merchantId = await deps.emails.claim(address, newMerchantId(), now());
      const pk = issueKey("publishable", deps.mode);
      const sk = issueKey("secret", deps.mode);
      await send(merchantId, "CreateMerchant", {
        name,
        email: address,
        keys: [pk.issued, sk.issued],
      });
      await waitFor("the new keys", async () => (await active(pk.issued.hash)) && active(sk.issued.hash));
      const merchant = await view(merchantId);
      if (!merchant) throw new ReplyTimeoutError("the merchant projection did not show the merchant in time");
      return { merchant, publishableKey: pk.key, secretKey: sk.key };
    },
    async roll(merchantId, kind, replaces = null) {
      const before = (await deps.store.keysOf(merchantId)).filter((k) => k.kind === kind && !k.revokedAt);
      const next = issueKey(kind, deps.mode);
      await send(merchantId, "RotateKey", { key: next.issued, replaces });
      await waitFor("the rolled key", async () => {
        if (!(await active(next.issued.hash))) return false;
        const keys = await deps.store.keysOf(merchantId);
        return before.every((b) => keys.find((k) => k.keyId === b.keyId)?.revokedAt);
      });
      return { keyId: next.issued.keyId, key: next.key };
    },
    async revoke(merchantId, keyId) {
      // A key the merchant never had needs no decision: refused here, so no command is journaled. The
      // projection shows every key handed out (create and roll wait for it); a merchant has keys.
      const keys = await deps.store.keysOf(merchantId);
      if (keys.length === 0) throw refused("merchant_not_found");
      if (!keys.some((k) => k.keyId === keyId)) throw refused("key_not_found");
      await send(merchantId, "RevokeKey", { keyId });
      await waitFor("the revocation", async () =>
        (await deps.store.keysOf(merchantId)).some((k) => k.keyId === keyId && k.revokedAt !== null),
      );
    },
    view,
    async setWebhookEndpoint(merchantId, url) {
      const endpointId = `we_${randomUUID().replaceAll("-", "")}`;
      const secret = newWebhookSecret();
      const sentAt = now();
      // The secret is stored first and never sent: merchant.events is public and kept forever.
      await deps.endpoints.putSecret(merchantId, endpointId, secret);
      await send(merchantId, "SetWebhookEndpoint", { endpointId, url, secret: null });
      let createdAt = sentAt;
      await waitFor("the webhook endpoint", async () => {
        const row = await deps.endpoints.get(merchantId);
        if (row?.endpointId === endpointId) createdAt = row.createdAt ?? sentAt;
        return !!row && (row.endpointId === endpointId || (row.createdAt ?? 0) > sentAt);
      });
      return { id: endpointId, url, secret, created_at: iso(createdAt) };
    },
    async webhookEndpoint(merchantId) {
      const row = await deps.endpoints.get(merchantId);
      return row && { id: row.endpointId, url: row.url, created_at: iso(row.createdAt ?? 0) };
    },
    async pinDestination(merchantId, pin) {
      const sentAt = now();
      await send(merchantId, "PinDestination", pin);
      let pins: DestinationPin[] = [];
      await waitFor("the pinned destination", async () => {
        const rows = await deps.store.destinationsOf(merchantId);
        pins = rows.map(pinOf);
        const row = rows.find((r) => r.sourceChainId === pin.sourceChainId);
        return !!row && (samePin(row, pin) || row.updatedAt > sentAt);
      });
      return pins;
    },
    async destinations(merchantId) {
      return (await deps.store.destinationsOf(merchantId)).map(pinOf);
    },
    async setAppFee(merchantId, fee) {
      const sentAt = now();
      await send(merchantId, "SetAppFee", fee);
      await waitFor("the app fee", async () => {
        const row = await deps.store.appFeeOf(merchantId);
        const same =
          row?.bps === fee.bps && row.recipient === fee.recipient && row.recipientSol === fee.recipientSol;
        return !!row && (same || row.updatedAt > sentAt);
      });
      return fee;
    },
    async appFee(merchantId) {
      const row = await deps.store.appFeeOf(merchantId);
      return row ? { bps: row.bps, recipient: row.recipient, recipientSol: row.recipientSol } : NO_APP_FEE;
    },
    async setSettings(merchantId, settings) {
      const sentAt = now();
      await send(merchantId, "SetSettings", settings);
      // Answered once the gateway's check reads it: the next POST /sessions is held to it.
      await waitFor("the settings", async () => {
        const row = await deps.store.settingsOf(merchantId);
        return (
          !!row &&
          (row.p2pPinnedDestinationsOnly === settings.p2pPinnedDestinationsOnly || row.updatedAt > sentAt)
        );
      });
      return settings;
    },
    async settings(merchantId) {
      const row = await deps.store.settingsOf(merchantId);
      return row ? { p2pPinnedDestinationsOnly: row.p2pPinnedDestinationsOnly } : DEFAULT_MERCHANT_SETTINGS;
    },
    async removeWebhookEndpoint(merchantId) {
      const before = await deps.endpoints.get(merchantId);
      if (!before) return false;
      await send(merchantId, "RemoveWebhookEndpoint", {});
      // Gone, or replaced by a concurrent PUT: either way the endpoint asked about no longer is.
      await waitFor("the removal", async () => {
        return (await deps.endpoints.get(merchantId))?.endpointId !== before.endpointId;
      });
      return true;
    },
  };
}

/** A webhook endpoint as the API shows it; the secret only in the PUT's answer. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  /** ISO 8601 UTC. */
  created_at: string;
}
export interface WebhookEndpointSecretView extends WebhookEndpointView {
  /** The `whsec_` signing secret, shown once. */
  secret: string;
}

/** The merchant record as the API shows it: never a secret key, only its id and last four characters. */
export interface MerchantView {
  id: string;
  name: string;
  email: string;
  /** ISO 8601 UTC. */
  created_at: string;
  livemode: boolean;
  keys: Array<{
    id: string;
    type: KeyKind;
    /** The publishable key itself; null for a secret key. */
    key: string | null;
    last4: string;
    created_at: string;
    revoked_at: string | null;
  }>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A projection row as the pin it is (without its write time). */
const pinOf = ({ sourceChainId, destAddress, destChainId }: DestinationPin): DestinationPin => ({
  sourceChainId,
  destAddress,
  destChainId,
});

const samePin = (a: DestinationPin, b: DestinationPin) =>
  a.destAddress === b.destAddress && a.destChainId === b.destChainId;

export function merchantView(row: MerchantRow, keys: KeyRow[], mode: KeyMode): MerchantView {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    created_at: iso(row.createdAt),
    livemode: mode === "live",
    keys: keys.map((k) => ({
      id: k.keyId,
      type: k.kind,
      key: k.publishable,
      last4: k.hint,
      created_at: iso(k.createdAt),
      revoked_at: k.revokedAt === null ? null : iso(k.revokedAt),
    })),
  };
}
