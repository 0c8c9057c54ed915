import type { LinkCommand, LinkEvent } from "../domain/link/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";

/**
 * The payment link entity's topics (schemas/LinkCommand.avsc, LinkEvent.avsc): their TypeScript
 * types are the domain's (src/domain/link/), checked both ways by the annotations below. Kept apart
 * from records.ts so the link contract reads in one place.
 */

type Avro = Record<string, unknown>;

const replyTo = f.record({ gatewayId: f.string, correlationId: f.string });

const terms = {
  merchantId: f.string,
  slug: f.string,
  amount: f.decimal,
  description: f.nullable(f.string),
  expiresAt: f.nullable(f.number),
};

/** link.commands: a command to one payment link's actor, keyed by link id. */
export const linkCommand: f.Field<LinkCommand, Avro> = message({
  metadata: { commandId: f.string, issuedAt: f.number, replyTo: f.nullable(replyTo) },
  data: { linkId: f.string },
  union: "command",
  types: {
    CreateLink: terms,
    DeactivateLink: { merchantId: f.string },
  },
});

/** link.events: the payment link journal, kept forever. */
export const linkEvent: f.Field<LinkEvent, Avro> = message({
  metadata: { linkId: f.string, version: f.number, occurredAt: f.number, commandId: f.string },
  data: {},
  union: "event",
  types: {
    LinkCreated: terms,
    LinkDeactivated: {},
  },
});
