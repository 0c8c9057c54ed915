// Our local Jupiter (deploy/local/providers/jupiter.ts) over a private Solana node: SOL's price is the
// seeded pool's ratio and follows its reserves when they move on chain, holdings are the node's balances
// at the time of the request, a quote is the constant-product answer for the reserves, and Jupiter's
// refusals (wrong key, unknown pair, bad owner) answer as Jupiter does. Then the service's Jupiter adapter
// against it: holdings of known mints only, priced, cached, and a failure as ProviderUnavailableError.
import {
  createMint,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  mintTo,
  NATIVE_MINT,
} from "@solana/spl-token";
import {
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jupiterServer } from "../../deploy/local/providers/jupiter.ts";
import { POOL_SEED } from "../../deploy/local/solana/pool.ts";
import { createProviderCache } from "../../src/providers/cache.ts";
import { createJupiter } from "../../src/providers/jupiter.ts";
import { ProviderUnavailableError } from "../../src/providers/types.ts";
import { fundSolanaWallet, keypairOf, openPrivateSolana } from "../support/solana-node.ts";

const KEY = "jupiter-test-key";
const SOL = NATIVE_MINT.toBase58();

let solana: Awaited<ReturnType<typeof openPrivateSolana>>;
let server: FastifyInstance;
let usdc: string;
const requests: string[] = [];

async function get(url: string, key: string | null = KEY) {
  const res = await server.inject({ method: "GET", url, headers: key ? { "x-api-key": key } : {} });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> & unknown[] };
}

beforeAll(async () => {
  solana = await openPrivateSolana();
  usdc = solana.node.info.usdcMint;
  server = jupiterServer({ market: solana.node.info, apiKey: KEY });
  // What reached the server, so the adapter's cache can be seen saving requests.
  server.addHook("onRequest", async (req) => {
    requests.push(req.url.split("?")[0] ?? "");
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await solana?.stop();
});

describe("local Jupiter", () => {
  it("prices SOL from the seeded pool and USDC at 1, leaving unknown mints out", async () => {
    const unknown = Keypair.generate().publicKey.toBase58();
    const { status, body } = await get(`/price/v3?ids=${SOL},${usdc},${unknown}`);
    expect(status).toBe(200);
    const seeded = Number(POOL_SEED.usdc) / 1e6 / (Number(POOL_SEED.lamports) / 1e9);
    expect(body).toEqual({
      [SOL]: { usdPrice: seeded, blockId: expect.any(Number), decimals: 9 },
      [usdc]: { usdPrice: 1, blockId: expect.any(Number), decimals: 6 },
    });
  });

  it("refuses a request without the key, as Jupiter does", async () => {
    expect((await get(`/price/v3?ids=${SOL}`, null)).status).toBe(401);
    expect((await get(`/price/v3?ids=${SOL}`, "another-key")).status).toBe(401);
  });

  it("answers holdings read from the node, and SOL's price follows the pool's reserves", async () => {
    const { connection, depositor, mint } = solana;
    const wallet = Keypair.generate();
    const to = await fundSolanaWallet(connection, depositor, mint, wallet.publicKey, {
      lamports: 2n * BigInt(LAMPORTS_PER_SOL),
      usdc: 12_345_678n,
    });
    const holdings = await get(`/ultra/v1/holdings/${wallet.publicKey.toBase58()}`);
    expect(holdings.status).toBe(200);
    expect(holdings.body).toEqual({
      amount: String(2 * LAMPORTS_PER_SOL),
      uiAmount: 2,
      uiAmountString: "2",
      tokens: {
        [usdc]: [
          {
            account: to.toBase58(),
            amount: "12345678",
            uiAmount: 12.345678,
            uiAmountString: "12.345678",
            isFrozen: false,
            isAssociatedTokenAccount: true,
            decimals: 6,
            programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
          },
        ],
      },
    });

    // Double the pool's USDC on chain: SOL's price doubles.
    const mintAuthority = keypairOf(solana.node.info.mintAuthorityKey);
    const poolUsdc = new PublicKey(solana.node.info.pool.usdcAccount);
    await sendAndConfirmTransaction(
      connection,
      new Transaction().add(createMintToInstruction(mint, poolUsdc, mintAuthority.publicKey, POOL_SEED.usdc)),
      [depositor, mintAuthority],
    );
    const price = await get(`/price/v3?ids=${SOL}`);
    const doubled = (2 * Number(POOL_SEED.usdc)) / 1e6 / (Number(POOL_SEED.lamports) / 1e9);
    expect((price.body as Record<string, { usdPrice: number }>)[SOL]?.usdPrice).toBe(doubled);
  });

  it("quotes a swap from the pool's reserves, constant product less a 30 bps fee", async () => {
    const poolUsdc = await solana.connection.getTokenAccountBalance(
      new PublicKey(solana.node.info.pool.usdcAccount),
    );
    const poolSol = await solana.connection.getBalance(new PublicKey(solana.node.info.pool.key.publicKey));
    const amount = 1_000_000_000n;
    const { status, body } = await get(
      `/swap/v1/quote?inputMint=${SOL}&outputMint=${usdc}&amount=${amount}&slippageBps=100`,
    );
    expect(status).toBe(200);
    const afterFee = amount - (amount * 30n) / 10_000n;
    const out = (BigInt(poolUsdc.value.amount) * afterFee) / (BigInt(poolSol) + afterFee);
    expect(body).toMatchObject({
      inputMint: SOL,
      inAmount: amount.toString(),
      outputMint: usdc,
      outAmount: out.toString(),
      otherAmountThreshold: ((out * 9_900n) / 10_000n).toString(),
      slippageBps: 100,
      contextSlot: expect.any(Number),
      routePlan: [{ percent: 100, swapInfo: { ammKey: solana.node.info.pool.key.publicKey } }],
    });
  });

  it("finds known tokens by symbol or mint, and nothing for an unknown mint", async () => {
    const bySymbol = await get("/tokens/v2/search?query=usdc");
    expect(bySymbol.body).toEqual([expect.objectContaining({ id: usdc, symbol: "USDC", decimals: 6 })]);
    const unknown = getAssociatedTokenAddressSync(NATIVE_MINT, Keypair.generate().publicKey).toBase58();
    const byMint = await get(`/tokens/v2/search?query=${SOL},${unknown}`);
    expect(byMint.body).toEqual([expect.objectContaining({ id: SOL, symbol: "SOL", decimals: 9 })]);
  });

  it("refuses an unknown pair and a malformed owner with Jupiter's errors", async () => {
    const other = Keypair.generate().publicKey.toBase58();
    const noRoute = await get(`/swap/v1/quote?inputMint=${other}&outputMint=${usdc}&amount=1000`);
    expect(noRoute).toEqual({
      status: 400,
      body: expect.objectContaining({ errorCode: "COULD_NOT_FIND_ANY_ROUTE" }),
    });
    const badOwner = await get("/ultra/v1/holdings/not-base58-0OIl");
    expect(badOwner).toEqual({ status: 400, body: { error: "Invalid address" } });
  });
});

describe("the Jupiter adapter (src/providers/jupiter.ts) against it", () => {
  let url: string;
  const aggregator = (timeoutMs = 2000) =>
    createJupiter({
      apiUrl: url,
      apiKey: KEY,
      chainId: 792703810,
      usdcMint: usdc,
      timeoutMs,
      cache: createProviderCache({ ttlMs: 60_000, max: 100 }),
    });

  beforeAll(async () => {
    url = await server.listen({ host: "127.0.0.1", port: 0 });
  });

  it("answers the known mints a wallet holds, priced, and leaves a mint Jupiter does not know out", async () => {
    const { connection, depositor, mint } = solana;
    const wallet = Keypair.generate();
    // A mint of our own that Jupiter has never heard of, held beside SOL and USDC.
    const other = await createMint(connection, depositor, depositor.publicKey, null, 6);
    const otherAccount = await getOrCreateAssociatedTokenAccount(
      connection,
      depositor,
      other,
      wallet.publicKey,
    );
    await mintTo(connection, depositor, other, otherAccount.address, depositor, 5_000_000n);
    await fundSolanaWallet(connection, depositor, mint, wallet.publicKey, {
      lamports: BigInt(LAMPORTS_PER_SOL / 10),
      usdc: 7_000_000n,
    });
    const jupiter = aggregator();
    const price = (await get(`/price/v3?ids=${SOL}`)).body as Record<string, { usdPrice: number }>;
    const holdings = await jupiter.holdings(wallet.publicKey.toBase58());
    expect(holdings.sort((a, b) => a.symbol.localeCompare(b.symbol))).toEqual([
      {
        chainId: 792703810,
        token: SOL,
        symbol: "SOL",
        name: "Wrapped SOL",
        decimals: 9,
        amount: BigInt(LAMPORTS_PER_SOL / 10),
        priceUsd: price[SOL]?.usdPrice,
        logo: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/logos\/SOL\.svg$/),
      },
      {
        chainId: 792703810,
        token: usdc,
        symbol: "USDC",
        name: "USD Coin",
        decimals: 6,
        amount: 7_000_000n,
        priceUsd: 1,
        logo: expect.stringMatching(/\/logos\/USDC\.svg$/),
      },
    ]);
    // Asked again within the cache's time: Jupiter is not asked again.
    const asked = requests.length;
    await jupiter.holdings(wallet.publicKey.toBase58());
    expect(requests.length).toBe(asked);
    expect(requests.slice(-3).sort()).toEqual([
      "/price/v3",
      "/tokens/v2/search",
      `/ultra/v1/holdings/${wallet.publicKey.toBase58()}`,
    ]);
  });

  it("turns a refusal, a timeout and an unreachable server into ProviderUnavailableError", async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    const wrongKey = createJupiter({
      apiUrl: url,
      apiKey: "wrong",
      chainId: 1,
      usdcMint: usdc,
      timeoutMs: 2000,
      cache: createProviderCache({ ttlMs: 0, max: 1 }),
    });
    await expect(wrongKey.holdings(wallet)).rejects.toBeInstanceOf(ProviderUnavailableError);
    const nowhere = createJupiter({
      apiUrl: "http://127.0.0.1:9",
      apiKey: KEY,
      chainId: 1,
      usdcMint: usdc,
      timeoutMs: 2000,
      cache: createProviderCache({ ttlMs: 0, max: 1 }),
    });
    await expect(nowhere.holdings(wallet)).rejects.toBeInstanceOf(ProviderUnavailableError);
  });
});
