/**
 * A walk through the service on the local stack, as a payer's app does it with the client library
 * (src/client/, the package entry `deposit-settlement/client`; docs/CLIENT.md): make a burner and
 * sign its EIP-7702 authorization and a standing refund, open a session, pay USDC (or ETH) to the
 * burner, and let the detect-then-sign flow run: detected over SSE, quote (not for USDC), Intent
 * signed by the burner, commit, swept on the destination chain. docs/CLIENT.md's example ("The demo, line
 * for line") is taken from this file, line for line. Run by `npm run demo` (deploy/local/demo.ts).
 */
import { createApiClient, newBurner, payDetectThenSign, signStandingRefund } from "deposit-settlement/client";
import { testPayer } from "./demo-payer.ts";
import { readStack } from "./stack.ts";

const stack = await readStack(); // .local/stack.json, written by `npm start`
const [source, dest] = stack?.chains ?? [];
if (!source || !dest) throw new Error("no local stack: run `npm start` first");

// Pay: send USDC (or ETH) to the burner on the source chain, once the session is open.
const { payer, pay, reader } = testPayer(source);

const client = createApiClient({ baseUrl: process.env.GATEWAY_URL ?? "http://127.0.0.1:8080" });
const burner = await newBurner(source); // the source chain's { chainId, delegate }
const { created, signed, committed, settled } = await payDetectThenSign(client, {
  burner,
  destination: { address: dest.funded.address, chainId: dest.chainId },
  usdc: { [source.chainId]: source.usdc }, // a USDC deposit is not swapped, so not quoted
  publicClient: reader, // ETH is: the payer's own on-chain quote checks the service's before signing
  // Where the money goes back if the session expires or fails: signed up front, run by the service.
  standingRefund: await signStandingRefund({
    signer: burner.account,
    to: payer.account.address,
    chainIds: [source.chainId],
  }),
  onCreated: () => pay(burner.address),
  onSession: (s) => console.log(`SSE status=${s.status} amount=${s.detected_amount} tx=${s.detected_tx}`),
});
console.log("created", created);
console.log(`signed min_out=${signed.intent.min_out} committed fee_bps=${committed.fee_bps}`);
console.log(`settled outcome=${settled.outcome} delivered to ${dest.chainId}: ${settled.dest_tx}`);
console.log("session", settled);
