import { evolveSubscription } from "../domain/subscription/decider.ts";
import type { Subscription, SubscriptionEvent } from "../domain/subscription/types.ts";
import type { CassandraClient } from "./cassandra.ts";

/** Typed access to the subscription projection (migration 0010). */
export interface SubscriptionStore {
  /**
   * Folds one event into the stored state with the domain's evolve and writes it. An event at or
   * below the stored version is already in it (a re-delivered batch) and changes nothing; the events
   * of one subscription arrive in order from one partition, so the next one is always version + 1.
   */
  apply(event: SubscriptionEvent): Promise<void>;
  get(subscriptionId: string): Promise<Subscription | null>;
}

const Q = { prepare: true } as const;

export function createSubscriptionStore(cassandra: CassandraClient): SubscriptionStore {
  const get = async (id: string): Promise<Subscription | null> => {
    const rs = await cassandra.execute("SELECT state FROM subscriptions WHERE subscription_id = ?", [id], Q);
    const text = rs.first()?.get("state") as string | null | undefined;
    return text ? (JSON.parse(text) as Subscription) : null;
  };
  return {
    get,
    async apply(event) {
      const { subscriptionId, version } = event.metadata;
      const before = event.type === "SubscriptionCreated" ? null : await get(subscriptionId);
      if (before && version <= before.version) return;
      const after = evolveSubscription(before, event);
      if (!after)
        throw new Error(`subscription ${subscriptionId}: ${event.type} v${version} before its creation`);
      // Write time in microseconds = the version: a later event wins, a replay writes the same cells.
      await cassandra.execute(
        `INSERT INTO subscriptions (subscription_id, merchant_id, version, state) VALUES (?, ?, ?, ?) USING TIMESTAMP ${BigInt(version)}`,
        [subscriptionId, after.merchantId, BigInt(version), JSON.stringify(after)],
        Q,
      );
    },
  };
}
