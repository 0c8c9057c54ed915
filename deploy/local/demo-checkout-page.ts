import { createApiClient, newBurner, payCheckout } from "deposit-settlement/client";
import type { LocalChain } from "./chains.ts";
import { testPayer } from "./demo-payer.ts";

/**
 * The payer's page of the merchant demos: with the pk_ and client secret the merchant's server handed
 * it, it registers a fresh burner for the checkout session, has the stack's test account pay it, and
 * runs the detect-then-sign flow to `swept` (payCheckout), printing the session's statuses.
 */
export async function payCheckoutPage(args: {
  source: LocalChain;
  gatewayUrl: string;
  publishableKey: string;
  session: { id: string; client_secret: string };
}) {
  const { source, session } = args;
  const client = createApiClient({
    baseUrl: args.gatewayUrl,
    checkout: { publishableKey: args.publishableKey, clientSecret: session.client_secret },
  });
  const { pay } = testPayer(source);
  const burner = await newBurner(source);
  const { settled } = await payCheckout(client, {
    id: session.id,
    burner,
    usdc: { [source.chainId]: source.usdc },
    onRegistered: () => pay(burner.address),
    onSession: (s) =>
      console.log(`SSE status=${s.status} amount=${s.detected_amount} dest=${s.dest_address}`),
  });
  return { client, settled };
}
