import type { SignIntentReturnType } from "../../src/client/actions/sign-intent.ts";

/** A signed Intent in wire form for client tests whose server does not verify it. */
export const signedIntent: SignIntentReturnType = {
  chainId: 31337,
  signature: `0x${"ab".repeat(65)}`,
  intent: {
    dest_chain_id: 31338,
    dest_addr: "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
    min_out: "25000000",
    deadline: Math.floor(Date.now() / 1000) + 3600,
    salt: `0x${"11".repeat(32)}`,
    in_token: "0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9",
    max_in: "25000000",
    app_fee_bps: 0,
    app_fee_recipient: "0x0000000000000000000000000000000000000000",
  },
};
