import {
  createAssociatedTokenAccountIdempotent,
  getAccount,
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../deploy/local/chains.ts";
import { SOLANA_LOCAL_CHAIN_ID } from "../../src/chains/solana/config.ts";
import {
  type ApiClient,
  ApiError,
  createApiClient,
  createSession,
  getSession,
  makeSolanaBurner,
  newBurner,
  paySolanaDetectThenSign,
  SessionEndedError,
  waitForStatus,
} from "../../src/client/index.ts";
import { fund } from "../support/payer.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { keypairOf } from "../support/solana-node.ts";

// The payer's client library driving the real service on the local stack: Kafka, Cassandra and the
// two anvil chains, every role in this process, the gateway on a real port.

let service: TestService;
let client: ApiClient;
let source: LocalChain;
let dest: LocalChain;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"], // the demo runs to swept
    env: { SSE_KEEPALIVE_MS: "500", INDEXER_POLL_MS: "250" },
  });
  [source, dest] = service.stack.chains as [LocalChain, LocalChain];
  client = createApiClient({ baseUrl: service.url });
});
afterAll(async () => {
  await service?.stop();
});

describe("the payer's client library against the service", () => {
  it("creates a session, reads it, and sees a USDC deposit detected over SSE", async () => {
    const burner = await newBurner(source);
    const destination = { address: dest.funded.address, chainId: dest.chainId };
    const created = await createSession(client, { burner, destination });
    expect(created).toMatchObject({ status: "pending", expires_at: expect.any(Number) });

    const session = await getSession(client, { id: created.id });
    expect(session).toMatchObject({
      id: created.id,
      status: "pending",
      burner_address: burner.address.toLowerCase(),
      eip7702_auth: { ...burner.eip7702Auth, address: burner.eip7702Auth.address.toLowerCase() },
      dest_address: dest.funded.address.toLowerCase(),
      dest_chain_id: dest.chainId,
      expires_at: created.expires_at,
    });

    // Follow the stream before the money moves, as a payer's page would.
    const seen: string[] = [];
    const detected = waitForStatus(client, {
      id: created.id,
      status: "detected",
      timeout: 60_000,
      onSession: (s) => seen.push(s.status),
    });
    const { hash } = await fund(source, burner.address, 25_000_000n, "usdc");
    await expect(detected).resolves.toMatchObject({
      id: created.id,
      status: "detected",
      source_chain_id: source.chainId,
      detected_token: source.usdc.toLowerCase(),
      detected_amount: "25000000",
      detected_tx: hash,
    });
    expect(seen).toEqual(["pending", "detected"]);
    expect((await getSession(client, { id: created.id })).status).toBe("detected");
  });

  it("answers the same session to a repeated create with the same Idempotency-Key", async () => {
    const burner = await newBurner(source);
    const params = {
      burner,
      destination: { address: dest.funded.address, chainId: dest.chainId },
      idempotencyKey: `client-e2e-${crypto.randomUUID()}`,
    };
    const [a, b] = [await createSession(client, params), await createSession(client, params)];
    expect(b).toEqual(a);
  });

  it("reports the service's refusals as http ApiErrors with its message, without retrying", async () => {
    const other = await newBurner(source);
    const burner = { ...(await newBurner(source)), eip7702Auth: other.eip7702Auth };
    const refused = await createSession(client, {
      burner,
      destination: { address: dest.funded.address, chainId: dest.chainId },
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ kind: "http", status: 400, code: "api_error", retryable: false });
    expect((refused as ApiError).serverMessage).toMatch(/authoriz/i);

    const unknown = "00000000-0000-4000-8000-000000000000";
    await expect(getSession(client, { id: unknown })).rejects.toMatchObject({ kind: "http", status: 404 });
    await expect(waitForStatus(client, { id: unknown, status: "detected" })).rejects.toMatchObject({
      kind: "http",
      status: 404,
    });
  });

  it("times out a wait for a deposit that never comes, naming the last status", async () => {
    const created = await createSession(client, {
      burner: await newBurner(source),
      destination: { address: dest.funded.address, chainId: dest.chainId },
    });
    const err = await waitForStatus(client, { id: created.id, status: "detected", timeout: 1500 }).catch(
      (e: unknown) => e,
    );
    expect(err).not.toBeInstanceOf(SessionEndedError);
    expect(err).toMatchObject({ kind: "timeout", status: 0, cause: "last status pending" });
  });

  it("drives a Solana USDC deposit from creation to swept: bounce setup and sweep signed after detection, exact balances, the relayer paying fees only", async () => {
    const stack = service.stack.solana;
    if (!stack) throw new Error("the local stack has no Solana node");
    const sol = new Connection(stack.rpcUrl, "confirmed");
    const mint = new PublicKey(stack.usdcMint);
    const payer = keypairOf(stack.testKey);
    const relayer = new PublicKey(stack.relayerKey.publicKey);
    const usdcOf = async (owner: PublicKey) => {
      const info = await sol
        .getTokenAccountBalance(getAssociatedTokenAddressSync(mint, owner))
        .catch(() => null);
      return info ? BigInt(info.value.amount) : 0n;
    };
    // A fresh destination wallet with its USDC account (the sweep pays accounts that exist).
    const destination = Keypair.generate().publicKey;
    await getOrCreateAssociatedTokenAccount(sol, payer, mint, destination);
    const relayerBefore = await usdcOf(relayer);
    const relayerLamports = async () => BigInt(await sol.getBalance(relayer, "confirmed"));
    const lamportsBefore = await relayerLamports();

    const burner = makeSolanaBurner();
    const seen: string[] = [];
    const out = await paySolanaDetectThenSign(client, {
      burner,
      destination: { address: destination.toBase58(), chainId: SOLANA_LOCAL_CHAIN_ID },
      refundTo: payer.publicKey.toBase58(),
      onCreated: async () => {
        const from = await getOrCreateAssociatedTokenAccount(sol, payer, mint, payer.publicKey);
        // The payer's transfer opens the burner's USDC account (the payer pays its rent).
        const to = await createAssociatedTokenAccountIdempotent(sol, payer, mint, burner.keypair.publicKey);
        await transfer(sol, payer, from.address, to, payer, 10_000_000n);
      },
      onSession: (s) => seen.push(s.status),
      detectionTimeout: 30_000,
      settlementTimeout: 30_000,
    });
    expect(out.registered).toEqual({ id: out.created.id, status: "pending" });
    expect(out.detected).toMatchObject({ detected_token: mint.toBase58(), detected_amount: "10000000" });
    expect(out.settled).toMatchObject({
      status: "swept",
      outcome: "succeeded",
      dest_address: destination.toBase58(),
    });
    expect(seen.slice(0, 2)).toEqual(["pending", "detected"]);
    // 10 USDC less the platform fee (fee_bps of the terms) to the destination, the fee to the relayer.
    const fee = (10_000_000n * BigInt(out.created.sweep.fee_bps)) / 10_000n;
    expect(await usdcOf(destination)).toBe(10_000_000n - fee);
    expect((await usdcOf(relayer)) - relayerBefore).toBe(fee);
    expect(await usdcOf(burner.keypair.publicKey)).toBe(0n);
    const sweep = await sol.getTransaction(out.settled.sweep_tx as string, { commitment: "finalized" });
    expect(sweep?.meta?.err).toBeNull();
    // The bounce setup the flow signed at detection was accepted and relayed: the relayer is the
    // burner account's delegate and close authority (docs/SOLANA.md, "The bounce").
    const account = await getAccount(sol, getAssociatedTokenAddressSync(mint, burner.keypair.publicKey));
    expect(account.delegate?.toBase58()).toBe(relayer.toBase58());
    expect(account.closeAuthority?.toBase58()).toBe(relayer.toBase58());
    // In lamports the relayer paid two fees of two signatures each, the setup's and the sweep's, and
    // no rent: it opened no account for the session.
    expect(lamportsBefore - (await relayerLamports())).toBe(20_000n);
  }, 60_000);
});
