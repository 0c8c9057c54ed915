import type { MerchantEvent } from "../domain/merchant/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";
import {
  appFee,
  destinationPin,
  endpoint,
  issuedKeyFields,
  merchantSettings,
  stealthMeta,
} from "./merchant-fields.ts";
import type { Avro } from "./shared.ts";

/** merchant.events: the merchant journal, kept forever. */
export const merchantEvent: f.Field<MerchantEvent, Avro> = message({
  metadata: { merchantId: f.string, version: f.number, occurredAt: f.number, commandId: f.string },
  data: {},
  union: "event",
  types: {
    WebhookEndpointSet: endpoint,
    WebhookEndpointRemoved: {},
    MerchantCreated: { name: f.string, email: f.string },
    KeyIssued: issuedKeyFields,
    KeyRevoked: { keyId: f.string, hash: f.string },
    DestinationPinned: destinationPin,
    AppFeeSet: appFee,
    SettingsSet: merchantSettings,
    StealthMetaSet: stealthMeta,
  },
});
