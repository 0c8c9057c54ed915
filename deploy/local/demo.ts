/**
 * `npm run demo`: a walk through the service on the local stack, as a payer's app (and, for the
 * merchant flows, a merchant's server) does it with the client libraries (src/client/; docs/CLIENT.md,
 * docs/MERCHANT-CLIENT.md). The README's "Try it" lists every command; test/e2e/readme-try-it.e2e.test.ts
 * runs each one.
 *
 *   DEMO_FLOW=p2p (default)   a P2P session; DEMO_CHAIN picks the chain the deposit is made on: the
 *                             source anvil chain (default, demo-evm.ts) or the local Solana node
 *                             (`solana`, demo-solana.ts; DEMO_DEST=evm delivers on the EVM chain);
 *                             DEMO_TOKEN=native pays the chain's coin instead of USDC
 *   DEMO_FLOW=checkout        a merchant checkout session (demo-checkout.ts)
 *   DEMO_FLOW=stealth         a Flow D checkout to a stealth address, withdrawn gaslessly (demo-stealth.ts)
 *   GATEWAY_URL=http://…      another gateway
 */
const flow = process.env.DEMO_FLOW ?? "p2p";
const chain = process.env.DEMO_CHAIN ?? "evm";
if (flow === "checkout") await import("./demo-checkout.ts");
else if (flow === "stealth") await import("./demo-stealth.ts");
else if (flow !== "p2p") throw new Error(`DEMO_FLOW=${flow}: "p2p" (the default), "checkout" or "stealth"`);
else if (chain === "solana") await import("./demo-solana.ts");
else if (chain === "evm") await import("./demo-evm.ts");
else throw new Error(`DEMO_CHAIN=${chain}: "evm" (the default) or "solana"`);
