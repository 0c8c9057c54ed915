/**
 * The service side of the settlement benches: every role in this process on the local stack, and one
 * session taken through it by the payer's client library, with when each step was seen.
 */
import type { Address } from "viem";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import {
  type ApiClient,
  commit,
  createApiClient,
  createSession,
  newBurner as newPayerBurner,
  signIntent,
  waitForDetection,
  waitForStatus,
} from "../../src/client/index.ts";
import { startTestService } from "../support/service.ts";
import { AMOUNT, type Ctx, minedAt } from "./settlement-chains.ts";

/** Detection is measured at confirmation depth 1 (issue 10's goal); the indexer polls every 100 ms. */
export async function startSettlementService() {
  const service = await startTestService({
    roles: ["actors", "projector", "indexer", "executor", "gateway"],
    env: { INDEXER_POLL_MS: "100", LOCAL_CONFIRMATIONS: "1", LOG_LEVEL: "warn" },
  });
  return { service, client: createApiClient({ baseUrl: service.url }) };
}

/**
 * A USDC deposit on `src` to a fresh burner, detection, the signed Intent to `to`'s funded account
 * (the same chain or the other) committed, then `swept` on the session's event stream. Answers when
 * each was seen (unix ms, so they compare with the journal's record times).
 */
export async function settleThroughService(client: ApiClient, src: Ctx, to: Ctx) {
  const burner = await newPayerBurner(src.chain);
  const destination = { address: to.chain.funded.address as Address, chainId: to.chain.chainId };
  const { id } = await createSession(client, { burner, destination });
  const detection = waitForDetection(client, { id, timeout: 120_000 });
  const depositHash = await src.funded.writeContract({
    address: src.chain.usdc,
    abi: testUsdcAbi,
    functionName: "transfer",
    args: [burner.address, AMOUNT],
  });
  const mined = await minedAt(src, depositHash);
  const found = await detection;
  const detected = Date.now();
  const signed = await signIntent({ signer: burner.account, session: found, quote: null, destination });
  // Listening before the commit: a fast settlement's `swept` cannot go by unseen.
  const sweeping = waitForStatus(client, { id, status: "swept", timeout: 300_000 });
  const committed = Date.now();
  await commit(client, { id, burner, signed });
  const swept = await sweeping;
  if (swept.outcome !== "succeeded") throw new Error(`session ${id} swept with ${swept.outcome}`);
  return { id, mined, detected, committed, swept: Date.now() };
}
