import type { MerchantCommand } from "../domain/merchant/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";
import {
  appFee,
  destinationPin,
  endpoint,
  issuedKey,
  merchantSettings,
  stealthMeta,
} from "./merchant-fields.ts";
import { type Avro, replyTo } from "./shared.ts";

/** merchant.commands: a command to one merchant's actor, keyed by merchant id. */
export const merchantCommand: f.Field<MerchantCommand, Avro> = message({
  metadata: { commandId: f.string, issuedAt: f.number, replyTo: f.nullable(replyTo) },
  data: { merchantId: f.string },
  union: "command",
  types: {
    SetWebhookEndpoint: endpoint,
    RemoveWebhookEndpoint: {},
    CreateMerchant: { name: f.string, email: f.string, keys: f.array(issuedKey) },
    IssueKeys: { keys: f.array(issuedKey) },
    RotateKey: { key: issuedKey, replaces: f.nullable(f.string) },
    RevokeKey: { keyId: f.string },
    PinDestination: destinationPin,
    SetAppFee: appFee,
    SetSettings: merchantSettings,
    SetStealthMeta: stealthMeta,
  },
});
