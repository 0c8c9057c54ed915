import type { Decider, Decision } from "../decider.ts";
import {
  LINK_REJECTION_MESSAGES,
  type LinkCommand,
  type LinkEvent,
  type LinkRejectionCode,
  type LinkReply,
  type LinkState,
} from "./types.ts";

/** How many applied command ids a link remembers to recognise a retry. */
const RECENT_COMMANDS = 16;

type LinkDecision = Decision<LinkEvent, LinkReply, LinkRejectionCode>;
type LinkEventBody = LinkEvent extends infer E
  ? E extends { type: infer T; data: infer D }
    ? { type: T; data: D }
    : never
  : never;

/**
 * The payment link's pure core. A link is created once (its id is random, so a second creation is
 * a bug or a replayed command, refused) and deactivated once; deactivating again changes nothing.
 * Expiry is not an event: it is a time on the link, compared with the clock where a session is
 * made (the gateway), so a link expires without anyone sending anything.
 */
export function decideLink(command: LinkCommand, state: LinkState): LinkDecision {
  const accept = (bodies: LinkEventBody[]): LinkDecision => {
    const base = state?.version ?? 0;
    const { commandId, issuedAt } = command.metadata;
    const events = bodies.map(
      (body, i) =>
        ({
          ...body,
          metadata: { linkId: command.data.linkId, version: base + i + 1, occurredAt: issuedAt, commandId },
        }) as LinkEvent,
    );
    return { ok: true, events, outbox: reply(command, null) };
  };
  const refuse = (code: LinkRejectionCode): LinkDecision => {
    const rejection = { code, message: LINK_REJECTION_MESSAGES[code] };
    return { ok: false, rejection, outbox: reply(command, rejection) };
  };

  if (state?.recent.includes(command.metadata.commandId)) return accept([]);
  const c = command;
  switch (c.type) {
    case "CreateLink": {
      if (state) return refuse("link_exists");
      const { linkId: _, ...terms } = c.data;
      return accept([{ type: "LinkCreated", data: terms }]);
    }
    case "DeactivateLink":
      // Another merchant's link is as unknown as a link that does not exist.
      if (!state || state.merchantId !== c.data.merchantId) return refuse("link_not_found");
      return accept(state.deactivatedAt === null ? [{ type: "LinkDeactivated", data: {} }] : []);
    default:
      return c satisfies never;
  }
}

function reply(command: LinkCommand, rejection: LinkReply["data"]["rejection"]): LinkReply[] {
  const { replyTo } = command.metadata;
  return replyTo ? [{ type: "Reply", data: { replyTo, rejection } }] : [];
}

export function evolveLink(state: LinkState, event: LinkEvent): LinkState {
  const m = event.metadata;
  switch (event.type) {
    case "LinkCreated":
      return {
        id: m.linkId,
        version: m.version,
        ...event.data,
        createdAt: m.occurredAt,
        deactivatedAt: null,
        recent: [m.commandId],
      };
    case "LinkDeactivated":
      // Every other event follows LinkCreated in the journal.
      if (!state) return state;
      return {
        ...state,
        version: m.version,
        deactivatedAt: m.occurredAt,
        recent: [...state.recent, m.commandId].slice(-RECENT_COMMANDS),
      };
    default:
      return event satisfies never;
  }
}

export const linkDecider: Decider<LinkCommand, LinkEvent, LinkState, LinkReply, LinkRejectionCode> = {
  initialState: () => null,
  decide: decideLink,
  evolve: evolveLink,
  versionOf: (state) => state?.version ?? 0,
};
