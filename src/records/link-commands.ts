import type { LinkCommand } from "../domain/link/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";
import { terms } from "./link-fields.ts";
import { type Avro, replyTo } from "./shared.ts";

/**
 * link.commands (schemas/LinkCommand.avsc): its TypeScript type is the domain's (src/domain/link/),
 * checked both ways by the annotation below.
 */
export const linkCommand: f.Field<LinkCommand, Avro> = message({
  metadata: { commandId: f.string, issuedAt: f.number, replyTo: f.nullable(replyTo) },
  data: { linkId: f.string },
  union: "command",
  types: {
    CreateLink: terms,
    DeactivateLink: { merchantId: f.string },
  },
});
