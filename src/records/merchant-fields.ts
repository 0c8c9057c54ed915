import { KEY_KINDS } from "../domain/merchant/types.ts";
import * as f from "../record-fields/fields.ts";

/** Field groups of the merchant's topics: their TypeScript types are the domain's (src/domain/merchant/). */

/** The webhook endpoint; `secret` (whsec_) null only in records written before it existed. */
export const endpoint = { endpointId: f.string, url: f.string, secret: f.nullable(f.string) };

/** A merchant key as the journal keeps it: a secret key only as its hash. */
export const issuedKeyFields = {
  keyId: f.string,
  kind: f.oneOf(KEY_KINDS),
  hash: f.string,
  publishable: f.nullable(f.string),
  hint: f.string,
};
export const issuedKey = f.record(issuedKeyFields);

export const destinationPin = { sourceChainId: f.number, destAddress: f.string, destChainId: f.number };
/** `recipientSol` null: unset, and in records written before the Solana sink existed. */
export const appFee = { bps: f.number, recipient: f.address, recipientSol: f.nullable(f.chainAddress) };
export const merchantSettings = { p2pPinnedDestinationsOnly: f.boolean };
/** The stealth meta-address: its ERC-5564 keys, and the Solana scheme's (null: not registered). */
export const stealthMeta = {
  spendPubkey: f.hex,
  viewPubkey: f.hex,
  solSpendPubkey: f.nullable(f.chainAddress),
  solViewPubkey: f.nullable(f.chainAddress),
};
