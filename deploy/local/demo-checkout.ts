import { createPaymentSession, pinDestination } from "deposit-settlement/merchant";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { payCheckoutPage } from "./demo-checkout-page.ts";
import { demoMerchant } from "./demo-merchant.ts";
import { readStack } from "./stack.ts";

const stack = await readStack(); // .local/stack.json, written by `npm start`
const [source, dest] = stack?.chains ?? [];
if (!source || !dest) throw new Error("no local stack: run `npm start` first");
const gatewayUrl = process.env.GATEWAY_URL ?? "http://127.0.0.1:8080";

// The merchant's server: where its money goes, then a checkout session for 25 USDC.
const { pk, merchant } = await demoMerchant("Demo Shop", gatewayUrl);
const shopWallet = privateKeyToAddress(generatePrivateKey());
await pinDestination(merchant, {
  sourceChainId: source.chainId,
  destAddress: shopWallet,
  destChainId: dest.chainId,
});
const checkout = await createPaymentSession(merchant, { amount: "25000000" });
console.log(`checkout session ${checkout.id} for ${checkout.amount} USDC base units`);

// The payer's page, with the pk_ and client secret the merchant's server handed it.
const { settled } = await payCheckoutPage({ source, gatewayUrl, publishableKey: pk, session: checkout });
console.log(
  `settled outcome=${settled.outcome} to ${settled.dest_address} on chain ${settled.dest_chain_id}: ${settled.dest_tx}`,
);
console.log("session", settled);
