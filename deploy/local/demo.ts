/**
 * A walk through the service on the local stack, as a payer would do it: make a burner, sign its
 * EIP-7702 authorization, open a session, watch its event stream, and send USDC to the burner.
 *
 *   npm start            (in one terminal)
 *   npm run demo         (in another; DEMO_TOKEN=native sends ETH instead)
 */
import { createParser } from "eventsource-parser";
import { createPublicClient, createWalletClient, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { newBurner } from "../../src/client/burner.ts";
import { toViemChain } from "./chains.ts";
import { readStack } from "./stack.ts";

const base = process.env.GATEWAY_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`;
const stack = await readStack();
const [source, dest] = stack?.chains ?? [];
if (!source || !dest) throw new Error("no local stack: run `npm start` first");

const burner = await newBurner(source);
const res = await fetch(`${base}/sessions`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    burner_address: burner.address,
    eip7702_auth: burner.eip7702Auth,
    destination_address: dest.funded.address,
    destination_chain: dest.chainId,
  }),
});
const created = (await res.json()) as { id: string; status: string; expires_at: number };
console.log(`POST /sessions -> ${res.status}`, created);

// Follow the stream until the session is detected.
const stream = await fetch(`${base}/sessions/${created.id}/events`);
const detected = new Promise<void>((resolve) => {
  const parser = createParser({
    onEvent: (e) => {
      const s = JSON.parse(e.data) as {
        status: string;
        detected_amount: string | null;
        detected_tx: string | null;
      };
      console.log(`SSE ${e.event}: status=${s.status} amount=${s.detected_amount} tx=${s.detected_tx}`);
      if (s.status === "detected") resolve();
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk));
  })().catch(() => {});
});

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
}).waitForTransactionReceipt({ hash });
console.log(`sent to burner ${burner.address} on chain ${source.chainId}: ${hash}`);
await detected;
console.log(`GET /sessions/${created.id}:`, await (await fetch(`${base}/sessions/${created.id}`)).json());
process.exit(0);
