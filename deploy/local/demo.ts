/**
 * A walk through the service on the local stack, as a payer's app does it with the client library
 * (src/client/, the package entry `deposit-settlement/client`): make a burner and sign its EIP-7702
 * authorization, open a session, follow its event stream, and send USDC to the burner. The README's
 * example ("The payer's client library") is taken from this file, line for line.
 *
 *   npm start            (in one terminal)
 *   npm run demo         (in another; DEMO_TOKEN=native sends ETH instead, GATEWAY_URL another gateway)
 */
import {
  createApiClient,
  createSession,
  getSession,
  newBurner,
  waitForStatus,
} from "deposit-settlement/client";
import { createPublicClient, createWalletClient, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { toViemChain } from "./chains.ts";
import { readStack } from "./stack.ts";

const stack = await readStack(); // .local/stack.json, written by `npm start`
const [source, dest] = stack?.chains ?? [];
if (!source || !dest) throw new Error("no local stack: run `npm start` first");

const client = createApiClient({ baseUrl: process.env.GATEWAY_URL ?? "http://127.0.0.1:8080" });
const burner = await newBurner(source); // the source chain's { chainId, delegate }
const session = await createSession(client, {
  burner,
  destination: { address: dest.funded.address, chainId: dest.chainId },
});
console.log("created", session);

const detected = waitForStatus(client, {
  id: session.id,
  status: "detected",
  onSession: (s) => console.log(`SSE status=${s.status} amount=${s.detected_amount} tx=${s.detected_tx}`),
});

// Pay: send USDC (or ETH) to burner.address on the source chain.
const chain = toViemChain(source);
const wallet = createWalletClient({
  account: privateKeyToAccount(source.funded.privateKey),
  chain,
  transport: http(source.rpcUrl),
});
const hash =
  process.env.DEMO_TOKEN === "native"
    ? await wallet.sendTransaction({ to: burner.address, value: parseUnits("0.01", 18) })
    : await wallet.writeContract({
        address: source.usdc,
        abi: testUsdcAbi,
        functionName: "transfer",
        args: [burner.address, parseUnits("25", 6)],
      });
await createPublicClient({
  chain,
  transport: http(source.rpcUrl),
  pollingInterval: 200,
}).waitForTransactionReceipt({
  hash,
});
console.log(`sent to burner ${burner.address} on chain ${source.chainId}: ${hash}`);

await detected;
console.log("session", await getSession(client, { id: session.id }));
