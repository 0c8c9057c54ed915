import type { IncomingMessage, ServerResponse } from "node:http";
import { Keypair } from "@solana/web3.js";
import { afterEach, describe, expect, it } from "vitest";
import { checkSolanaRefund } from "../../src/chains/solana/refund.ts";
import { NATIVE_MINT } from "../../src/chains/solana/sweep.ts";
import { makeSolanaBurner } from "../../src/client/actions/make-solana-burner.ts";
import { type RefundSolanaParameters, refundSolana } from "../../src/client/actions/refund-solana.ts";
import { createApiClient } from "../../src/client/api-client.ts";
import { type LocalServer, sendJson, serve } from "../support/local-http.ts";

// refundSolana against a local server playing POST /sessions/:id/solana-refund with the service's own
// check (checkSolanaRefund for the balance it "reads"), and a stub of the payer's RPC: the transfer of
// the whole balance the service accepts, signed again when the balance changed before the service
// read it, and nothing sent for an empty burner.

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const BLOCKHASH = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";
const relayer = Keypair.generate().publicKey.toBase58();
const mint = Keypair.generate().publicKey.toBase58();
const wallet = Keypair.generate().publicKey.toBase58();

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The route, checking each refund against what the chain holds when it is asked (`onChain()`). */
async function service(burner: string, onChain: () => bigint) {
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith("/solana/blockhash"))
      return sendJson(res, 200, { blockhash: BLOCKHASH, lastValidBlockHeight: 1000 });
    if (req.method === "POST" && req.url === `/sessions/${ID}/solana-refund`) {
      const body = JSON.parse(server?.requests.at(-1)?.body ?? "{}");
      const amount = onChain();
      const checked = checkSolanaRefund(body.transaction, {
        burner,
        feePayer: relayer,
        token: body.token,
        to: body.to,
        amount,
      });
      if (!checked.ok) return sendJson(res, 400, { error: `solana_refund_invalid: ${checked.reason}` });
      return sendJson(res, 200, {
        id: ID,
        signature: "sig",
        to: body.to,
        token: body.token,
        amount: String(amount),
      });
    }
    sendJson(res, 404, { error: "not found" });
  };
  server = await serve(handler);
  return createApiClient({ baseUrl: server.url, retry: { attempts: 1 } });
}

/** The payer's RPC: each read answers the next balance of `reads` (the last one repeats). */
const rpc = (reads: bigint[]): RefundSolanaParameters["connection"] => {
  let n = 0;
  const next = () => reads[Math.min(n++, reads.length - 1)] as bigint;
  return {
    getBalance: async () => Number(next()),
    getTokenAccountBalance: async () =>
      ({ context: { slot: 1 }, value: { amount: String(next()), decimals: 6, uiAmount: null } }) as never,
  };
};

const posts = () => server?.requests.filter((r) => r.url.endsWith("/solana-refund")) ?? [];

describe("refundSolana", () => {
  it.each([
    ["USDC", mint],
    ["SOL", NATIVE_MINT],
  ])("%s: the whole balance to the payer's wallet, as the service checks it", async (_what, token) => {
    const burner = makeSolanaBurner();
    const client = await service(burner.address, () => 7_000_000n);
    const refunded = await refundSolana(client, {
      id: ID,
      connection: rpc([7_000_000n]),
      burner: burner.keypair,
      to: wallet,
      token,
      feePayer: relayer,
    });
    expect(refunded).toEqual({ id: ID, signature: "sig", to: wallet, token, amount: "7000000" });
    expect(posts()).toHaveLength(1);
  });

  it("signs again for the new balance when money arrived before the service read it", async () => {
    const burner = makeSolanaBurner();
    let chain = 5_000_000n;
    const client = await service(burner.address, () => chain);
    chain = 8_000_000n; // a late deposit lands between the payer's read and the service's
    const refunded = await refundSolana(client, {
      id: ID,
      connection: rpc([5_000_000n, 8_000_000n]),
      burner: burner.keypair,
      to: wallet,
      token: mint,
      feePayer: relayer,
    });
    expect(refunded?.amount).toBe("8000000");
    expect(posts()).toHaveLength(2);
  });

  it("a refusal the balance does not explain is thrown at once", async () => {
    const burner = makeSolanaBurner();
    const client = await service(burner.address, () => 1n);
    const err = await refundSolana(client, {
      id: ID,
      connection: rpc([5_000_000n]),
      burner: burner.keypair,
      to: wallet,
      token: mint,
      feePayer: relayer,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, serverMessage: expect.stringMatching(/solana_refund_invalid/) });
    expect(posts()).toHaveLength(1);
  });

  it("an empty burner: nothing signed, nothing sent", async () => {
    const burner = makeSolanaBurner();
    const client = await service(burner.address, () => 0n);
    const params = {
      id: ID,
      connection: rpc([0n]),
      burner: burner.keypair,
      to: wallet,
      token: mint,
      feePayer: relayer,
    };
    expect(await refundSolana(client, params)).toBeNull();
    expect(server?.requests).toHaveLength(0);
    await expect(refundSolana(client, { ...params, to: "not base58" })).rejects.toMatchObject({
      code: "config_error",
    });
  });
});
