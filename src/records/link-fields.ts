import * as f from "../record-fields/fields.ts";

/** What a payment link is created with: its commands' and its journal's shared terms. */
export const terms = {
  merchantId: f.string,
  slug: f.string,
  amount: f.decimal,
  description: f.nullable(f.string),
  expiresAt: f.nullable(f.number),
};
