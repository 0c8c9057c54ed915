import { TOPIC } from "../../topics/catalogue.ts";
import type { EntityDefinition } from "../actors/entity.ts";
import { createEntityHost, type EntityHost, type EntityHostDeps } from "../actors/host.ts";
import { createSnapshotStore, type SnapshotStore } from "../actors/snapshots.ts";
import { merchantDecider } from "../domain/merchant/decider.ts";
import type {
  MerchantCommand,
  MerchantEvent,
  MerchantReply,
  MerchantState,
} from "../domain/merchant/types.ts";
import { merchantCommandCodec, merchantEventCodec } from "../kafka/codecs.ts";
import type { SnapshotTable } from "../store/snapshots.ts";
import { replyOutbox } from "./reply-outbox.ts";

/** The merchant actors' consumer group, and the prefix of their transactional ids. */
export const MERCHANT_GROUP = "merchants";

/**
 * The merchant entity: the merchant decider on merchant.commands -> merchant.events, keyed by
 * merchant id, on the same generic host as sessions. Its one outbox message is the reply to whoever
 * waits (a gateway or the CLI), on gateway.replies with no session in it. No timers (yet).
 */
export const merchantEntity: EntityDefinition<MerchantCommand, MerchantEvent, MerchantState, MerchantReply> =
  {
    name: "merchant",
    group: MERCHANT_GROUP,
    decider: merchantDecider,
    commandKey: (c) => c.data.merchantId,
    eventKey: (e) => e.metadata.merchantId,
    stateKey: (s) => (s as NonNullable<MerchantState>).id,
    inputs: [{ topic: TOPIC.merchantCommands, toCommand: (v) => merchantCommandCodec.decode(v) }],
    journal: {
      topic: TOPIC.merchantEvents,
      encode: (e) => merchantEventCodec.encode(e),
      // Only merchant hosts write merchant.events, checking every event first.
      decode: (v) => merchantEventCodec.decodeTrusted(v),
    },
    outbox: replyOutbox,
    // States are plain JSON (no bigints).
    snapshot: { encode: (s) => JSON.stringify(s), decode: (text) => JSON.parse(text) as MerchantState },
  };

export type MerchantHost = EntityHost<MerchantState>;

export const merchantSnapshots = (table: SnapshotTable): SnapshotStore<MerchantState> =>
  createSnapshotStore(table, merchantEntity);

/** The merchant actors: the generic host running the merchant entity. */
export function createMerchantHost(deps: EntityHostDeps<MerchantState>): MerchantHost {
  return createEntityHost(merchantEntity, deps);
}
