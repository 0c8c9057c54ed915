import type { LinkEvent } from "../domain/link/types.ts";
import type { CassandraClient } from "./cassandra.ts";

/** A payment link as the projection holds it (migration 0009). */
export interface LinkRow {
  id: string;
  merchantId: string;
  slug: string;
  /** USDC base units, decimal integer string. */
  amount: string;
  description: string | null;
  /** Unix ms, or null for never. */
  expiresAt: number | null;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms, or null while active. */
  deactivatedAt: number | null;
  version: number;
}

/** Typed access to the payment link projection. */
export interface LinkStore {
  /** Writes one event; idempotent, and an older event never overwrites a newer one. */
  apply(event: LinkEvent): Promise<void>;
  link(id: string): Promise<LinkRow | null>;
  bySlug(slug: string): Promise<LinkRow | null>;
}

const ms = (d: Date | null | undefined): number | null => (d ? d.getTime() : null);

export function createLinkStore(cassandra: CassandraClient): LinkStore {
  const exec = (cql: string, params: unknown[]) => cassandra.execute(cql, params, { prepare: true });
  const link = async (id: string): Promise<LinkRow | null> => {
    const r = (await exec("SELECT * FROM payment_links WHERE link_id = ?", [id])).first();
    // A row with only a version is a link whose creation is not written yet.
    if (!r || r.get("slug") === null) return null;
    return {
      id: r.get("link_id"),
      merchantId: r.get("merchant_id"),
      slug: r.get("slug"),
      amount: r.get("amount"),
      description: r.get("description") ?? null,
      expiresAt: ms(r.get("expires_at")),
      createdAt: ms(r.get("created_at")) ?? 0,
      deactivatedAt: ms(r.get("deactivated_at")),
      version: Number(r.get("version") ?? 0),
    };
  };
  return {
    async apply(event) {
      const { linkId, version, occurredAt } = event.metadata;
      // Write time in microseconds = the link's version: later events win, replays change nothing.
      const at = BigInt(version);
      const when = new Date(occurredAt);
      switch (event.type) {
        case "LinkCreated": {
          const d = event.data;
          const expires = d.expiresAt === null ? null : new Date(d.expiresAt);
          // The slug row first: a link the gateway can read by id is always reachable by its slug.
          await exec(
            `INSERT INTO payment_links_by_slug (slug, link_id) VALUES (?, ?) USING TIMESTAMP ${at}`,
            [d.slug, linkId],
          );
          await exec(
            `INSERT INTO payment_links (link_id, merchant_id, slug, amount, description, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ${at}`,
            [linkId, d.merchantId, d.slug, d.amount, d.description, expires, when],
          );
          break;
        }
        case "LinkDeactivated":
          await exec(`UPDATE payment_links USING TIMESTAMP ${at} SET deactivated_at = ? WHERE link_id = ?`, [
            when,
            linkId,
          ]);
          break;
        default:
          event satisfies never;
      }
      await exec(`UPDATE payment_links USING TIMESTAMP ${at} SET version = ? WHERE link_id = ?`, [
        BigInt(version),
        linkId,
      ]);
    },
    link,
    async bySlug(slug) {
      const r = (await exec("SELECT link_id FROM payment_links_by_slug WHERE slug = ?", [slug])).first();
      return r ? link(r.get("link_id")) : null;
    },
  };
}
