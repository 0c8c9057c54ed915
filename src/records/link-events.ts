import type { LinkEvent } from "../domain/link/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";
import { terms } from "./link-fields.ts";
import type { Avro } from "./shared.ts";

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
