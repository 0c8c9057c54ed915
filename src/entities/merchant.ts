import { TOPIC } from "../../topics/catalogue.ts";
import type { EntityDefinition } from "../actors/entity.ts";
import { merchantDecider } from "../domain/merchant/decider.ts";
import type {
  MerchantCommand,
  MerchantEvent,
  MerchantReply,
  MerchantState,
} from "../domain/merchant/types.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { replyOutbox } from "./reply-outbox.ts";

/** The merchant actors' consumer group, and the prefix of their transactional ids. */
export const MERCHANT_GROUP = "merchants";

export type MerchantEntity = EntityDefinition<MerchantCommand, MerchantEvent, MerchantState, MerchantReply>;

/**
 * The merchant entity: the merchant decider on merchant.commands -> merchant.events, keyed by
 * merchant id, on the same generic host as sessions. Its one outbox message is the reply to whoever
 * waits (a gateway or the CLI), on gateway.replies with no session in it. No timers (yet).
 */
export const merchantEntity = (
  codecs: Pick<Codecs, "merchantCommand" | "merchantEvent" | "gatewayReply">,
): MerchantEntity => ({
  name: "merchant",
  group: MERCHANT_GROUP,
  decider: merchantDecider,
  commandKey: (c) => c.data.merchantId,
  eventKey: (e) => e.metadata.merchantId,
  stateKey: (s) => (s as NonNullable<MerchantState>).id,
  inputs: [{ topic: TOPIC.merchantCommands, toCommand: (v) => codecs.merchantCommand.decode(v) }],
  journal: {
    topic: TOPIC.merchantEvents,
    encode: (e) => codecs.merchantEvent.encode(e),
    // Only merchant hosts write merchant.events, checking every event first.
    decode: (v) => codecs.merchantEvent.decodeTrusted(v),
  },
  outbox: replyOutbox(codecs),
  // States are plain JSON (no bigints).
  snapshot: { encode: (s) => JSON.stringify(s), decode: (text) => JSON.parse(text) as MerchantState },
});
