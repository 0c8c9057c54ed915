import type { CassandraClient } from "./cassandra.ts";

/** What the first request with a key decided: the rest of the key's requests follow it. */
export interface IdempotencyClaim {
  fingerprint: string;
  sessionId: string;
  clientSecret: string;
  /** The first answer's JSON, once it was given. */
  response: string | null;
  /** Unix ms: when the key was claimed (its 24 hours run from then). */
  createdAt: number;
}

/** How long a key holds, as the table's default TTL says. */
export const IDEMPOTENCY_TTL_SECONDS = 86_400;

const Q = { prepare: true } as const;

/** Typed access to `idempotency_keys` (migrations/0012_idempotency_keys.cql), 24-hour rows. */
export function idempotencyKeys(client: CassandraClient) {
  return {
    /**
     * Claims the key with `proposal` unless a request claimed it first (a lightweight transaction,
     * so of two concurrent requests exactly one claim wins); answers the claim that holds.
     */
    async claim(
      merchantId: string,
      key: string,
      proposal: Omit<IdempotencyClaim, "response">,
    ): Promise<IdempotencyClaim> {
      const rs = await client.execute(
        "INSERT INTO idempotency_keys (merchant_id, idempotency_key, fingerprint, session_id, client_secret, created_at) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS",
        [
          merchantId,
          key,
          proposal.fingerprint,
          proposal.sessionId,
          proposal.clientSecret,
          new Date(proposal.createdAt),
        ],
        Q,
      );
      const r = rs.first();
      if (r.get("[applied]") === true) return { ...proposal, response: null };
      return {
        fingerprint: String(r.get("fingerprint")),
        sessionId: String(r.get("session_id")),
        clientSecret: String(r.get("client_secret")),
        response: (r.get("response") as string | null) ?? null,
        createdAt: (r.get("created_at") as Date).getTime(),
      };
    },
    /**
     * Keeps the first answer for the key's remaining time: with the table's default TTL the cell
     * would outlive the row's other cells and keep a dead key claimed.
     */
    async answered(claim: IdempotencyClaim, merchantId: string, key: string, response: string, now: number) {
      const ttl = IDEMPOTENCY_TTL_SECONDS - Math.floor((now - claim.createdAt) / 1000);
      if (ttl < 1) return;
      await client.execute(
        "UPDATE idempotency_keys USING TTL ? SET response = ? WHERE merchant_id = ? AND idempotency_key = ?",
        [ttl, response, merchantId, key],
        Q,
      );
    },
  };
}

export type IdempotencyKeys = ReturnType<typeof idempotencyKeys>;
