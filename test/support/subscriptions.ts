// A subscription's terms for unit tests of the decider and the codecs: plain values, no chain.
import type { SubscriptionTerms } from "../../src/domain/subscription/types.ts";

export const SUBSCRIPTION_ID = "0f2b5c3e-1a2b-8c3d-9e4f-0123456789ab";

export function termsFixture(mandate: { start: number; period: number }): SubscriptionTerms {
  return {
    merchantId: "m_1",
    chainId: 31337,
    manager: "0x1111111111111111111111111111111111111111",
    digest: `0x${"ab".repeat(32)}`,
    mandate: {
      payer: "0x2222222222222222222222222222222222222222",
      token: "0x3333333333333333333333333333333333333333",
      amount: "10000000",
      merchantAddress: "0x4444444444444444444444444444444444444444",
      appFeeBps: 25,
      appFeeRecipient: "0x5555555555555555555555555555555555555555",
      salt: `0x${"01".repeat(32)}`,
      ...mandate,
    },
    signature: `0x${"cd".repeat(65)}`,
    feeBps: 80,
  };
}
