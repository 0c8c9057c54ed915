/**
 * `npm run demo`: a walk through the service on the local stack, as a payer's app does it with the
 * client library (src/client/, the package entry `deposit-settlement/client`; docs/CLIENT.md).
 * DEMO_CHAIN picks the chain the deposit is made on: the source anvil chain (default, demo-evm.ts,
 * the README's example) or the local Solana node (`DEMO_CHAIN=solana`, demo-solana.ts).
 *
 *   npm start                               (in one terminal)
 *   npm run demo                            (in another; DEMO_TOKEN=native sends ETH instead)
 *   DEMO_CHAIN=solana npm run demo          (a Solana deposit; DEMO_TOKEN=native sends SOL instead)
 *   DEMO_CHAIN=solana DEMO_DEST=evm npm run demo  (Solana USDC paid out on the EVM destination chain)
 *   GATEWAY_URL=http://… npm run demo       (another gateway)
 */
const chain = process.env.DEMO_CHAIN ?? "evm";
if (chain === "solana") await import("./demo-solana.ts");
else if (chain === "evm") await import("./demo-evm.ts");
else throw new Error(`DEMO_CHAIN=${chain}: "evm" (the default) or "solana"`);
