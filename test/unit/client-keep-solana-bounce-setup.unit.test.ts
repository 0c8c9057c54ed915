import { Keypair, PublicKey } from "@solana/web3.js";
import { afterEach, describe, expect, it } from "vitest";
import { checkBounceSetup } from "../../src/chains/solana/bounce-setup.ts";
import { keepSolanaBounceSetup } from "../../src/client/actions/keep-solana-bounce-setup.ts";
import { makeSolanaBurner } from "../../src/client/actions/make-solana-burner.ts";
import { createApiClient } from "../../src/client/api-client.ts";
import { type LocalServer, sendJson, serve } from "../support/local-http.ts";

// keepSolanaBounceSetup against a local server that plays the two routes it uses: every round signs
// the setup on the blockhash the service answers then (each checked with the service's own checker),
// a failed round is reported and the next one tried, and it stops once the service takes no more
// (409: the setup was relayed, or the session committed or ended) or the app aborts it.

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const CHAIN = 792703810;
const relayer = Keypair.generate().publicKey.toBase58();
const mint = Keypair.generate().publicKey.toBase58();
const wallet = Keypair.generate().publicKey.toBase58();
/** What of the session's sweep terms the setup needs: its chain, relayer and mint. */
const terms = { chain_id: CHAIN, usdc_mint: mint, fee_payer: relayer };
/** A new blockhash for each read, as a chain gives one per slot. */
const blockhashes = Array.from({ length: 20 }, () => Keypair.generate().publicKey.toBase58());

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The routes; `attachAnswer(n)` is the status of the n-th setup registration (from 1). */
async function service(attachAnswer: (n: number) => number) {
  let reads = 0;
  let attaches = 0;
  server = await serve((req, res) => {
    const route = `${req.method} ${req.url?.replace(ID, ":id").replace(/\?.*/, "")}`;
    if (route === "GET /solana/blockhash")
      return sendJson(res, 200, {
        blockhash: blockhashes[reads++ % blockhashes.length],
        lastValidBlockHeight: 1,
      });
    if (route === "POST /sessions/:id/solana-burner") {
      const status = attachAnswer(++attaches);
      return status === 200
        ? sendJson(res, 200, { id: ID, status: "pending" })
        : sendJson(res, status, { error: status === 409 ? "a bounce setup is relayed already" : "RPC down" });
    }
    sendJson(res, 404, { error: route });
  });
  return createApiClient({ baseUrl: server.url, retry: { attempts: 1, baseMs: 5, maxMs: 20 } });
}

/** The blockhash each setup the service was given is signed on, after the service's own check. */
function setupsGiven(burner: Keypair): string[] {
  return (server?.requests ?? [])
    .filter((r) => r.url.endsWith("/solana-burner"))
    .map((r) => {
      const checked = checkBounceSetup((JSON.parse(r.body) as { bounce_setup: string }).bounce_setup, {
        sessionId: ID,
        burner: burner.publicKey,
        relayer: new PublicKey(relayer),
        mint: new PublicKey(mint),
      });
      if (!checked.ok) throw new Error(checked.reason);
      expect(checked.refundTo).toBe(wallet);
      return checked.transaction.message.recentBlockhash;
    });
}

/** The session, its terms and refund address, for `burner`. */
const setupOf = (burner: ReturnType<typeof makeSolanaBurner>) => ({
  id: ID,
  terms,
  burner,
  refundTo: wallet,
});

describe("keepSolanaBounceSetup", () => {
  it("signs a new setup on a new blockhash each round until the service takes no more (409), and says how many it attached", async () => {
    const client = await service((n) => (n <= 3 ? 200 : 409));
    const burner = makeSolanaBurner();
    const attached = await keepSolanaBounceSetup(client, { ...setupOf(burner), every: 5 });
    expect(attached).toBe(3);
    // Four rounds: three kept, the fourth answered 409 and the loop ended there.
    expect(setupsGiven(burner.keypair)).toEqual(blockhashes.slice(0, 4));
  });

  it("reports a failed round and carries on with the next", async () => {
    const client = await service((n) => (n === 2 ? 502 : n <= 3 ? 200 : 409));
    const burner = makeSolanaBurner();
    const errors: unknown[] = [];
    const attached = await keepSolanaBounceSetup(client, {
      ...setupOf(burner),
      every: 5,
      onError: (err) => errors.push(err),
    });
    expect(attached).toBe(2);
    expect(errors).toEqual([expect.objectContaining({ status: 502 })]);
    expect(setupsGiven(burner.keypair)).toHaveLength(4);
  });

  it("stops when the app aborts it, and waits `startIn` before its first round", async () => {
    const client = await service(() => 200);
    const burner = makeSolanaBurner();
    const stop = new AbortController();
    const kept = keepSolanaBounceSetup(client, {
      ...setupOf(burner),
      every: 20,
      startIn: 60,
      signal: stop.signal,
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(setupsGiven(burner.keypair)).toEqual([]);
    await new Promise((r) => setTimeout(r, 90));
    stop.abort();
    const attached = await kept;
    expect(attached).toBeGreaterThanOrEqual(1);
    const given = setupsGiven(burner.keypair).length;
    await new Promise((r) => setTimeout(r, 60));
    expect(setupsGiven(burner.keypair)).toHaveLength(given);
  });
});
