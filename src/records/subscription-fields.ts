import * as f from "../record-fields/fields.ts";

/** The signed EIP-712 Mandate; `merchant_address` is the mandate's `merchant` field. */
export const mandate = f.record({
  payer: f.address,
  token: f.address,
  amount: f.decimal,
  period: f.number,
  start: f.number,
  merchantAddress: f.address,
  appFeeBps: f.number,
  appFeeRecipient: f.address,
  salt: f.hex,
});

/** What a subscription is created with: its commands' and its journal's shared terms. */
export const terms = {
  merchantId: f.string,
  chainId: f.number,
  manager: f.address,
  digest: f.hex,
  mandate,
  signature: f.hex,
  feeBps: f.number,
};
