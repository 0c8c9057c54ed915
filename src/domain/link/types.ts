/**
 * The payment link entity's records: a link is merchant configuration, event-sourced on its own
 * entity (link.commands -> link.events, keyed by link id) so it never touches the merchant's or the
 * session's decider. These types are the wire records' TypeScript types too (src/records/link-*.ts
 * are checked against them both ways).
 */

import type { ReplyTo } from "../merchant/types.ts";

export interface LinkCommandMetadata {
  /** Idempotency key: a command id already applied is accepted again with no new events. */
  commandId: string;
  /** Unix ms; becomes the events' occurredAt (the decider reads no clock). */
  issuedAt: number;
  replyTo: ReplyTo | null;
}

/** What a link sells: fixed when it is created, never changed (a new price is a new link). */
export interface LinkTerms {
  merchantId: string;
  /** Random and URL-safe, chosen by the gateway: the public name of the link (/links/:slug). */
  slug: string;
  /** USDC base units (6 decimals), a positive decimal integer string. */
  amount: string;
  description: string | null;
  /** Unix ms after which the link takes no more sessions, or null for never. */
  expiresAt: number | null;
}

type Command<T extends string, D> = {
  type: T;
  data: { linkId: string } & D;
  metadata: LinkCommandMetadata;
};

export type LinkCommand =
  | Command<"CreateLink", LinkTerms>
  /** `merchantId`: who asks; another merchant's link is refused as not found (nothing leaks). */
  | Command<"DeactivateLink", { merchantId: string }>;

export interface LinkEventMetadata {
  linkId: string;
  /** The link's version after this event: 1, then +1 per event, without gaps. */
  version: number;
  /** Unix ms: the issuedAt of the command that caused the event. */
  occurredAt: number;
  commandId: string;
}

type Event<T extends string, D> = { type: T; data: D; metadata: LinkEventMetadata };

export type LinkEvent = Event<"LinkCreated", LinkTerms> | Event<"LinkDeactivated", Record<never, never>>;

export interface Link extends LinkTerms {
  id: string;
  version: number;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms once deactivated; null while active. */
  deactivatedAt: number | null;
  /** The last command ids applied, newest last: a retried command is recognised and not applied twice. */
  recent: string[];
}

/** null: no link with this id exists yet. */
export type LinkState = Link | null;

/** What a link decision sends: the answer to a waiting gateway. */
export interface LinkReply {
  type: "Reply";
  data: { replyTo: ReplyTo; rejection: { code: LinkRejectionCode; message: string } | null };
}

export type LinkRejectionCode = "link_exists" | "link_not_found";

export const LINK_REJECTION_MESSAGES: Record<LinkRejectionCode, string> = {
  link_exists: "conflict",
  link_not_found: "no such payment link",
};
