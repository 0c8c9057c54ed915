import { TOPIC } from "../../topics/catalogue.ts";
import type { EntityDefinition } from "../actors/entity.ts";
import { linkDecider } from "../domain/link/decider.ts";
import type { LinkCommand, LinkEvent, LinkReply, LinkState } from "../domain/link/types.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { replyOutbox } from "./reply-outbox.ts";

/** The link actors' consumer group, and the prefix of their transactional ids. */
export const LINK_GROUP = "links";

export type LinkEntity = EntityDefinition<LinkCommand, LinkEvent, LinkState, LinkReply>;

/**
 * The payment link entity: the link decider on link.commands -> link.events, keyed by link id, on
 * the same generic host as sessions and merchants. Its one outbox message is the reply to the
 * waiting gateway, on gateway.replies with no session in it. No timers: expiry is a time the
 * gateway compares, not an event.
 */
export const linkEntity = (
  codecs: Pick<Codecs, "linkCommand" | "linkEvent" | "gatewayReply">,
): LinkEntity => ({
  name: "link",
  group: LINK_GROUP,
  decider: linkDecider,
  commandKey: (c) => c.data.linkId,
  eventKey: (e) => e.metadata.linkId,
  stateKey: (s) => (s as NonNullable<LinkState>).id,
  inputs: [{ topic: TOPIC.linkCommands, toCommand: (v) => codecs.linkCommand.decode(v) }],
  journal: {
    topic: TOPIC.linkEvents,
    encode: (e) => codecs.linkEvent.encode(e),
    // Only link hosts write link.events, checking every event first.
    decode: (v) => codecs.linkEvent.decodeTrusted(v),
  },
  outbox: replyOutbox(codecs),
  // States are plain JSON (the amount is a decimal string, times are numbers).
  snapshot: { encode: (s) => JSON.stringify(s), decode: (text) => JSON.parse(text) as LinkState },
});
