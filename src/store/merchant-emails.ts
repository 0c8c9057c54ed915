import type { CassandraClient } from "./cassandra.ts";

/** Typed access to `merchant_emails` (migration 0015): one holder per normalized e-mail address. */
export interface MerchantEmails {
  /**
   * Claims `email` for `merchantId` unless a merchant holds it already (a lightweight transaction:
   * of concurrent claims one wins); answers the holder's id, this one or the existing one.
   */
  claim(email: string, merchantId: string, nowMs: number): Promise<string>;
}

export function merchantEmails(client: CassandraClient): MerchantEmails {
  return {
    async claim(email, merchantId, nowMs) {
      const rs = await client.execute(
        "INSERT INTO merchant_emails (email, merchant_id, claimed_at) VALUES (?, ?, ?) IF NOT EXISTS",
        [email, merchantId, new Date(nowMs)],
        { prepare: true },
      );
      if (rs.wasApplied()) return merchantId;
      const holder = rs.first()?.get("merchant_id");
      if (typeof holder !== "string")
        throw new Error(`merchant_emails: no holder answered for a taken e-mail`);
      return holder;
    },
  };
}
