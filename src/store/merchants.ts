import type {
  AppFee,
  DestinationPin,
  KeyKind,
  MerchantEvent,
  MerchantSettings,
  StealthMeta,
} from "../domain/merchant/types.ts";
import type { CassandraClient } from "./cassandra.ts";
import { webhookEndpoints } from "./webhook-endpoints.ts";

export interface MerchantRow {
  id: string;
  name: string;
  email: string;
  /** Unix ms. */
  createdAt: number;
  version: number;
}

export interface KeyRow {
  merchantId: string;
  keyId: string;
  kind: KeyKind;
  hint: string;
  publishable: string | null;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms, or null while active. */
  revokedAt: number | null;
}

/** A key found by its hash: what authentication needs. */
export interface KeyByHash extends KeyRow {
  hash: string;
}

/** A pinned destination as the projection has it. */
export interface DestinationRow extends DestinationPin {
  /** Unix ms. */
  updatedAt: number;
}

/** Typed access to the merchant projection (migrations 0007, 0011, 0016 and 0019). */
export interface MerchantStore {
  /** Writes one event; idempotent, and an older event never overwrites a newer one. */
  apply(event: MerchantEvent): Promise<void>;
  merchant(id: string): Promise<MerchantRow | null>;
  keysOf(merchantId: string): Promise<KeyRow[]>;
  keyByHash(hash: string): Promise<KeyByHash | null>;
  /** The merchant's pinned destinations, by source chain. */
  destinationsOf(merchantId: string): Promise<DestinationRow[]>;
  /** The merchant's app fee, or null when none was set. */
  appFeeOf(merchantId: string): Promise<(AppFee & { updatedAt: number }) | null>;
  /** The merchant's settings, or null when it never set them. */
  settingsOf(merchantId: string): Promise<(MerchantSettings & { updatedAt: number }) | null>;
  /** The merchant's stealth meta-address, or null when it registered none. */
  stealthMetaOf(merchantId: string): Promise<(StealthMeta & { updatedAt: number }) | null>;
}

const ms = (d: Date | null): number | null => (d ? d.getTime() : null);

export function createMerchantStore(cassandra: CassandraClient): MerchantStore {
  const endpoints = webhookEndpoints(cassandra);
  const exec = (cql: string, params: unknown[]) => cassandra.execute(cql, params, { prepare: true });
  const keyRow = (r: { get(name: string): unknown }): KeyRow => ({
    merchantId: r.get("merchant_id") as string,
    keyId: r.get("key_id") as string,
    kind: r.get("kind") as KeyKind,
    hint: r.get("hint") as string,
    publishable: (r.get("publishable") as string | null) ?? null,
    createdAt: ms(r.get("created_at") as Date) ?? 0,
    revokedAt: ms(r.get("revoked_at") as Date | null),
  });
  return {
    async apply(event) {
      const { merchantId, version, occurredAt } = event.metadata;
      // Write time in microseconds = the merchant's version: later events win, replays change nothing.
      const at = BigInt(version);
      const when = new Date(occurredAt);
      switch (event.type) {
        case "MerchantCreated":
          await exec(
            `INSERT INTO merchants (merchant_id, name, email, created_at) VALUES (?, ?, ?, ?) USING TIMESTAMP ${at}`,
            [merchantId, event.data.name, event.data.email, when],
          );
          break;
        case "KeyIssued": {
          const k = event.data;
          const values = [merchantId, k.keyId, k.kind, k.hint, k.publishable, when];
          await exec(
            `INSERT INTO merchant_keys (key_hash, merchant_id, key_id, kind, hint, publishable, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ${at}`,
            [k.hash, ...values],
          );
          await exec(
            `INSERT INTO merchant_keys_by_merchant (merchant_id, key_id, kind, hint, publishable, created_at) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ${at}`,
            values,
          );
          break;
        }
        case "KeyRevoked":
          await exec(`UPDATE merchant_keys USING TIMESTAMP ${at} SET revoked_at = ? WHERE key_hash = ?`, [
            when,
            event.data.hash,
          ]);
          await exec(
            `UPDATE merchant_keys_by_merchant USING TIMESTAMP ${at} SET revoked_at = ? WHERE merchant_id = ? AND key_id = ?`,
            [when, merchantId, event.data.keyId],
          );
          break;
        case "DestinationPinned": {
          const d = event.data;
          await exec(
            `INSERT INTO merchant_destinations (merchant_id, source_chain_id, dest_address, dest_chain_id, updated_at) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ${at}`,
            [merchantId, BigInt(d.sourceChainId), d.destAddress, BigInt(d.destChainId), when],
          );
          break;
        }
        case "AppFeeSet":
          await exec(
            `INSERT INTO merchant_app_fees (merchant_id, app_fee_bps, app_fee_recipient, app_fee_recipient_sol, updated_at) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ${at}`,
            [merchantId, event.data.bps, event.data.recipient, event.data.recipientSol, when],
          );
          break;
        case "SettingsSet":
          await exec(
            `INSERT INTO merchant_settings (merchant_id, p2p_pinned_destinations_only, updated_at) VALUES (?, ?, ?) USING TIMESTAMP ${at}`,
            [merchantId, event.data.p2pPinnedDestinationsOnly, when],
          );
          break;
        case "StealthMetaSet": {
          const m = event.data;
          await exec(
            `INSERT INTO merchant_stealth_meta (merchant_id, spend_pubkey, view_pubkey, sol_spend_pubkey, sol_view_pubkey, updated_at) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ${at}`,
            [merchantId, m.spendPubkey, m.viewPubkey, m.solSpendPubkey, m.solViewPubkey, when],
          );
          break;
        }
        case "WebhookEndpointSet":
        case "WebhookEndpointRemoved":
          // The webhooks worker reads its own table (src/store/webhook-endpoints.ts).
          await endpoints.project(event);
          break;
        default: {
          const unknown: never = event;
          throw new Error(`unknown merchant event ${(unknown as { type: string }).type}`);
        }
      }
      await exec(`UPDATE merchants USING TIMESTAMP ${at} SET version = ? WHERE merchant_id = ?`, [
        BigInt(version),
        merchantId,
      ]);
    },
    async merchant(id) {
      const rs = await exec(
        "SELECT merchant_id, name, email, created_at, version FROM merchants WHERE merchant_id = ?",
        [id],
      );
      const r = rs.first();
      // A row with only a version is a merchant whose creation is not written yet.
      if (!r || r.get("name") === null) return null;
      return {
        id: r.get("merchant_id"),
        name: r.get("name"),
        email: r.get("email"),
        createdAt: ms(r.get("created_at")) ?? 0,
        version: Number(r.get("version") ?? 0),
      };
    },
    async keysOf(merchantId) {
      const rs = await exec("SELECT * FROM merchant_keys_by_merchant WHERE merchant_id = ?", [merchantId]);
      return rs.rows.map(keyRow).sort((a, b) => a.createdAt - b.createdAt || a.keyId.localeCompare(b.keyId));
    },
    async keyByHash(hash) {
      const rs = await exec("SELECT * FROM merchant_keys WHERE key_hash = ?", [hash]);
      const r = rs.first();
      return r ? { ...keyRow(r), hash: r.get("key_hash") } : null;
    },
    async destinationsOf(merchantId) {
      const rs = await exec("SELECT * FROM merchant_destinations WHERE merchant_id = ?", [merchantId]);
      return rs.rows.map((r) => ({
        sourceChainId: Number(r.get("source_chain_id")),
        destAddress: r.get("dest_address") as string,
        destChainId: Number(r.get("dest_chain_id")),
        updatedAt: ms(r.get("updated_at") as Date) ?? 0,
      }));
    },
    async appFeeOf(merchantId) {
      const rs = await exec("SELECT * FROM merchant_app_fees WHERE merchant_id = ?", [merchantId]);
      const r = rs.first();
      return r
        ? {
            bps: r.get("app_fee_bps") as number,
            recipient: r.get("app_fee_recipient") as AppFee["recipient"],
            recipientSol: (r.get("app_fee_recipient_sol") as string | null) ?? null,
            updatedAt: ms(r.get("updated_at") as Date) ?? 0,
          }
        : null;
    },
    async settingsOf(merchantId) {
      const rs = await exec("SELECT * FROM merchant_settings WHERE merchant_id = ?", [merchantId]);
      const r = rs.first();
      return r
        ? {
            p2pPinnedDestinationsOnly: r.get("p2p_pinned_destinations_only") === true,
            updatedAt: ms(r.get("updated_at") as Date) ?? 0,
          }
        : null;
    },
    async stealthMetaOf(merchantId) {
      const rs = await exec("SELECT * FROM merchant_stealth_meta WHERE merchant_id = ?", [merchantId]);
      const r = rs.first();
      return r
        ? {
            spendPubkey: r.get("spend_pubkey") as StealthMeta["spendPubkey"],
            viewPubkey: r.get("view_pubkey") as StealthMeta["viewPubkey"],
            solSpendPubkey: (r.get("sol_spend_pubkey") as string | null) ?? null,
            solViewPubkey: (r.get("sol_view_pubkey") as string | null) ?? null,
            updatedAt: ms(r.get("updated_at") as Date) ?? 0,
          }
        : null;
    },
  };
}
