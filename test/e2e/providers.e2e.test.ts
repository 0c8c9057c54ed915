// The provider-backed routes on the real service (actors, projector and gateway in this process, Kafka,
// Cassandra, the two anvil chains) through the real Alchemy and 0x adapters, against our local provider
// servers (deploy/local/providers/) run as child processes of this test, so one can be stopped mid-test
// and started again on its port. A fresh wallet is funded with ETH and USDC on both chains and buys DAI
// with the transaction POST /quote answered; its token options and balances are then read back against
// the chains themselves. A Solana wallet holding SOL and USDC is read through our local Jupiter, whose
// prices come from the local SOL/USDC pool.

import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from "@solana/web3.js";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  type PublicClient,
  parseEther,
  parseUnits,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChain, toViemChain } from "../../deploy/local/chains.ts";
import type { LocalSolana } from "../../deploy/local/solana/launcher.ts";
import { ensureStack } from "../../deploy/local/stack.ts";
import {
  type ApiClient,
  createApiClient,
  getBalances,
  getSwapQuote,
  getTokenOptions,
} from "../../src/client/index.ts";
import type { EvmSwapQuote, TokenOption } from "../../src/client/types.ts";
import { type Child, startChild } from "../support/child-process.ts";
import { fund, newBurner, sessionBody } from "../support/payer.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { fundSolanaWallet, keypairOf } from "../support/solana-node.ts";

const KEY = "e2e-provider-key";
const UNLIMITED = { RATE_LIMIT_PER_SECOND: "100000", RATE_LIMIT_BURST: "100000" };

let service: TestService;
let client: ApiClient;
let chains: [LocalChain, LocalChain];
let solana: LocalSolana;
type ServerName = "alchemy" | "zeroex" | "jupiter";
const servers: Record<ServerName, { child?: Child; port: number }> = {
  alchemy: { port: 0 },
  zeroex: { port: 0 },
  jupiter: { port: 0 },
};
const wallet = privateKeyToAccount(generatePrivateKey());
/** The Solana wallet: 0.2 SOL (30 USD at the pool's seeded price) and 25 USDC. */
const solWallet = Keypair.generate().publicKey;
const SOL_HELD = { lamports: BigInt(LAMPORTS_PER_SOL / 5), usdc: 25_000_000n };
const NATIVE_MINT = "So11111111111111111111111111111111111111112";
let sessionId: string;

/** Starts (or starts again, on the same port) one of our provider servers as a child process. */
async function startServer(name: ServerName): Promise<void> {
  const server = servers[name];
  server.child = await startChild(name, [`deploy/local/providers/${name}.ts`], {
    env: {
      PROVIDER_PORT: String(server.port),
      PROVIDER_API_KEY: KEY,
      PROVIDER_CHAINS: JSON.stringify(chains),
      PROVIDER_SOLANA: JSON.stringify(solana),
    },
    ready: /listening on (http:\/\/\S+)/,
    // tsx compiles the server at start: seconds on a loaded machine.
    timeoutMs: 90_000,
  });
  server.port = Number(new URL(server.child.ready).port);
}

/**
 * With `server` stopped, both wallet lookups for `other` (another wallet: nothing of it is cached, so
 * they must reach the stopped server) and `alsoDown` answer 502 { error } and the session is unchanged;
 * once it is started again, GET /balances answers `back`.
 */
async function expectLookupsDownThenBack(
  server: ServerName,
  other: string,
  back: unknown,
  alsoDown?: () => Promise<Response>,
): Promise<void> {
  const before = await (await fetch(`${service.url}/sessions/${sessionId}`)).json();
  await servers[server].child?.stop();
  const lookups = [`/balances?address=${other}`, `/sessions/${sessionId}/token-options?wallet=${other}`];
  for (const pending of [
    ...lookups.map((path) => fetch(`${service.url}${path}`)),
    ...(alsoDown ? [alsoDown()] : []),
  ]) {
    const down = await pending;
    expect(down.status).toBe(502);
    expect(await down.json()).toEqual({ error: expect.any(String) });
  }
  expect(await (await fetch(`${service.url}/sessions/${sessionId}`)).json()).toEqual(before);
  await startServer(server);
  const answer = await fetch(`${service.url}/balances?address=${other}`);
  expect(answer.status).toBe(200);
  expect(await answer.json()).toEqual(back);
}
const serverUrl = (name: ServerName) => `http://127.0.0.1:${servers[name].port}`;

const publicClient = (chain: LocalChain) =>
  createPublicClient({
    chain: toViemChain(chain),
    transport: http(chain.rpcUrl),
    pollingInterval: 200,
  }) as PublicClient;
const walletClient = (chain: LocalChain) =>
  createWalletClient({ account: wallet, chain: toViemChain(chain), transport: http(chain.rpcUrl) });

/** An EVM chain's quote through the client library (the answer's `ecosystem` checked). */
async function evmQuote(params: Parameters<typeof getSwapQuote>[1]): Promise<EvmSwapQuote> {
  const quote = await getSwapQuote(client, params);
  if (quote.ecosystem !== "evm") throw new Error(`an EVM quote was expected: ${JSON.stringify(quote)}`);
  return quote;
}

/** Sends the quote's transaction from the wallet, as a wallet UI would, and waits for it to be mined. */
async function send(chain: LocalChain, quote: EvmSwapQuote) {
  const hash = await walletClient(chain).sendTransaction({
    to: quote.transaction.to as Address,
    data: quote.transaction.data as Hex,
    value: BigInt(quote.transaction.value),
    ...(quote.transaction.gas ? { gas: BigInt(quote.transaction.gas) } : {}),
  });
  return publicClient(chain).waitForTransactionReceipt({ hash });
}

const balanceOf = (chain: LocalChain, token: Address) =>
  publicClient(chain).readContract({
    address: token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [wallet.address],
  });

beforeAll(async () => {
  // The stack first (startTestService's own call then finds it up): the servers read its chains as deployed.
  const stack = await ensureStack({ root: ".local" });
  chains = stack.chains as [LocalChain, LocalChain];
  solana = stack.solana;
  await Promise.all([startServer("alchemy"), startServer("zeroex"), startServer("jupiter")]);
  service = await startTestService({
    roles: ["actors", "projector", "gateway"],
    env: {
      ...UNLIMITED,
      ALCHEMY_API_KEY: KEY,
      ALCHEMY_RPC_URL: `${serverUrl("alchemy")}/{network}/v2`,
      ALCHEMY_API_URL: serverUrl("alchemy"),
      ALCHEMY_NETWORKS: JSON.stringify(
        Object.fromEntries(chains.map((c) => [c.chainId, `local-${c.chainId}`])),
      ),
      ZEROEX_API_KEY: KEY,
      ZEROEX_API_URL: serverUrl("zeroex"),
      JUPITER_API_KEY: KEY,
      JUPITER_API_URL: serverUrl("jupiter"),
      // Short, so the cases after the swaps read fresh balances, and an outage is not hidden for long.
      PROVIDER_CACHE_TTL_MS: "500",
      PROVIDER_TIMEOUT_MS: "10000",
    },
  });
  client = createApiClient({ baseUrl: service.url, retry: { attempts: 1 } });
  // Gas and USDC on both chains: 40 USDC on the first, 15 on the second (funded one chain after the other
  // would double the wait; each chain's sender is its own).
  await Promise.all([
    ...chains.map(async (chain, i) => {
      await fund(chain, wallet.address, parseEther("1"), "native");
      await fund(chain, wallet.address, parseUnits(i === 0 ? "40" : "15", 6), "usdc");
    }),
    fundSolanaWallet(
      new Connection(solana.rpcUrl, "confirmed"),
      keypairOf(solana.testKey),
      new PublicKey(solana.usdcMint),
      solWallet,
      SOL_HELD,
    ),
  ]);
  const burner = await newBurner(chains[0]);
  const created = await fetch(`${service.url}/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(sessionBody(burner, chains[1])),
  });
  if (!created.ok) throw new Error(`POST /sessions answered ${created.status}: ${await created.text()}`);
  sessionId = ((await created.json()) as { id: string }).id;
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await Promise.all(Object.values(servers).map((s) => s.child?.stop()));
});

describe("POST /quote", () => {
  it("answers a transaction that, sent by the wallet, buys DAI with ETH on each chain", async () => {
    await Promise.all(
      chains.map(async (chain) => {
        const dai = chain.dex?.dai as Address;
        const quote = await evmQuote({
          chainId: chain.chainId,
          sellToken: "native",
          buyToken: dai,
          sellAmount: parseEther("0.01"),
          taker: wallet.address,
        });
        expect(quote).toMatchObject({
          chain_id: chain.chainId,
          sell_token: "native",
          buy_token: dai.toLowerCase(),
        });
        expect(quote.allowance_target).toBeNull();
        expect(BigInt(quote.min_buy_amount)).toBeLessThanOrEqual(BigInt(quote.buy_amount));
        const receipt = await send(chain, quote);
        expect(receipt.status).toBe("success");
        expect(await balanceOf(chain, dai)).toBeGreaterThanOrEqual(BigInt(quote.min_buy_amount));
      }),
    );
  });

  it("sells DAI for the chain's USDC once the wallet approved the allowance target the quote named", async () => {
    const chain = chains[0];
    const dai = chain.dex?.dai as Address;
    const sellAmount = (await balanceOf(chain, dai)) / 2n;
    const quote = await evmQuote({
      chainId: chain.chainId,
      sellToken: dai,
      sellAmount,
      taker: wallet.address,
    });
    expect(quote.buy_token).toBe(chain.usdc.toLowerCase());
    expect(quote.issues.allowance).toEqual({ actual: "0", spender: quote.allowance_target });
    const approve = await walletClient(chain).writeContract({
      address: dai,
      abi: erc20Abi,
      functionName: "approve",
      args: [quote.allowance_target as Address, sellAmount],
    });
    await publicClient(chain).waitForTransactionReceipt({ hash: approve });
    const usdcBefore = await balanceOf(chain, chain.usdc);
    expect((await send(chain, quote)).status).toBe("success");
    expect((await balanceOf(chain, chain.usdc)) - usdcBefore).toBeGreaterThanOrEqual(
      BigInt(quote.min_buy_amount),
    );
  });

  it("refuses a chain that is not configured and a pair with no pool, with { error }", async () => {
    const base = { sell_token: "native", sell_amount: "1000", taker: wallet.address };
    const unknown = await fetch(`${service.url}/quote`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...base, chain_id: 1 }),
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ error: expect.any(String) });
    const noPool = await fetch(`${service.url}/quote`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...base, chain_id: chains[0].chainId, buy_token: chains[0].delegate }),
    });
    expect(noPool.status).toBe(409);
    expect(await noPool.json()).toEqual({ error: expect.any(String) });
  });
});

describe("GET /sessions/:id/token-options and GET /balances", () => {
  it("lists USDC, DAI and ETH on both chains, priced from the pools and sorted by value_usd", async () => {
    await new Promise((r) => setTimeout(r, 600)); // past the cache's 500 ms: the balances after the swaps
    const {
      wallet: answered,
      ecosystem,
      options,
    } = await getTokenOptions(client, { id: sessionId, wallet: wallet.address });
    expect(answered).toBe(wallet.address.toLowerCase());
    expect(ecosystem).toBe("evm");
    // Six holdings: the coin, USDC and DAI on each chain, each amount the chain's own.
    expect(options).toHaveLength(6);
    for (const chain of chains) {
      const dai = chain.dex?.dai.toLowerCase() as Address;
      const of = (token: string) =>
        options.find((o) => o.chain_id === chain.chainId && o.token === token) as TokenOption;
      expect(of(chain.usdc.toLowerCase())).toMatchObject({
        symbol: "USDC",
        decimals: 6,
        amount: String(await balanceOf(chain, chain.usdc)),
        price_usd: 1,
      });
      expect(of(dai)).toMatchObject({
        symbol: "DAI",
        name: "Test DAI",
        decimals: 18,
        amount: String(await balanceOf(chain, dai)),
      });
      expect(of(dai).price_usd).toBeGreaterThan(0.9);
      expect(of(dai).price_usd).toBeLessThan(1.1);
      expect(of("native")).toMatchObject({
        symbol: "ETH",
        decimals: 18,
        amount: String(await publicClient(chain).getBalance({ address: wallet.address })),
      });
      expect(of("native").price_usd).toBeGreaterThan(1000);
    }
    for (const o of options) {
      expect(Object.keys(o).sort()).toEqual(
        [
          "amount",
          "chain_id",
          "decimals",
          "logo",
          "name",
          "price_usd",
          "symbol",
          "token",
          "value_usd",
        ].sort(),
      );
      expect(o.value_usd).toBeCloseTo((Number(o.amount) / 10 ** o.decimals) * o.price_usd, 4);
      if (o.token !== "native") expect(o.logo).toMatch(/^http:\/\/.+\.svg$/);
    }
    const values = options.map((o) => o.value_usd);
    expect(values).toEqual([...values].sort((a, b) => b - a));

    const { address, balances } = await getBalances(client, { address: wallet.address });
    expect(address).toBe(wallet.address.toLowerCase());
    expect(balances).toEqual(options);
  });

  it("answers 404 for an unknown session and 400 for a wallet that is no address", async () => {
    const unknown = await fetch(
      `${service.url}/sessions/${crypto.randomUUID()}/token-options?wallet=${wallet.address}`,
    );
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: expect.any(String) });
    const bad = await fetch(`${service.url}/balances?address=0x1234`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: expect.any(String) });
  });
});

describe("a Solana wallet (base58) through Jupiter", () => {
  /** The pool's reserves on the node: lamports and USDC base units. */
  async function poolReserves(): Promise<{ sol: bigint; usdc: bigint }> {
    const connection = new Connection(solana.rpcUrl, "confirmed");
    const [lamports, usdc] = await Promise.all([
      connection.getBalance(new PublicKey(solana.pool.key.publicKey)),
      connection.getTokenAccountBalance(new PublicKey(solana.pool.usdcAccount)),
    ]);
    return { sol: BigInt(lamports), usdc: BigInt(usdc.value.amount) };
  }
  /** SOL's USD price as the pool's reserves on the node say it (USDC per SOL). */
  async function poolPrice(): Promise<number> {
    const r = await poolReserves();
    return Number(r.usdc) / 1e6 / (Number(r.sol) / LAMPORTS_PER_SOL);
  }
  const quoteRequest = (body: Record<string, unknown>) =>
    fetch(`${service.url}/quote`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chain_id: 792703810, taker: solWallet.toBase58(), ...body }),
    });

  it("lists SOL and USDC on the Solana node, priced from the local pool and sorted by value_usd", async () => {
    const chainId = 792703810;
    const {
      wallet: answered,
      ecosystem,
      options,
    } = await getTokenOptions(client, {
      id: sessionId,
      wallet: solWallet.toBase58(),
    });
    expect(answered).toBe(solWallet.toBase58());
    expect(ecosystem).toBe("solana");
    const solPrice = await poolPrice();
    expect(options).toEqual([
      {
        chain_id: chainId,
        token: NATIVE_MINT,
        symbol: "SOL",
        name: "Wrapped SOL",
        decimals: 9,
        amount: SOL_HELD.lamports.toString(),
        price_usd: expect.closeTo(solPrice, 9),
        value_usd: expect.closeTo(0.2 * solPrice, 6),
        logo: expect.stringMatching(/^http:\/\/.+\/logos\/SOL\.svg$/),
      },
      {
        chain_id: chainId,
        token: solana.usdcMint,
        symbol: "USDC",
        name: "USD Coin",
        decimals: 6,
        amount: SOL_HELD.usdc.toString(),
        price_usd: 1,
        value_usd: 25,
        logo: expect.stringMatching(/^http:\/\/.+\/logos\/USDC\.svg$/),
      },
    ]);
    // 0.2 SOL at the seeded 150 USD is 30 USD: more than the 25 USDC, so SOL comes first.
    expect(options[0]?.value_usd).toBeGreaterThan(options[1]?.value_usd ?? Number.POSITIVE_INFINITY);

    const {
      address,
      ecosystem: family,
      balances,
    } = await getBalances(client, { address: solWallet.toBase58() });
    expect(address).toBe(solWallet.toBase58());
    expect(family).toBe("solana");
    expect(balances).toEqual(options);
  });

  it("POST /quote sells SOL for the chain's USDC at the pool's constant-product price; no route is 409, EVM forms 400", async () => {
    const sellAmount = 100_000_000n; // 0.1 SOL
    const r = await poolReserves();
    const quote = await getSwapQuote(client, {
      chainId: 792703810,
      sellToken: NATIVE_MINT,
      sellAmount,
      taker: solWallet.toBase58(),
      slippageBps: 100,
    });
    // The pool's 30 bps fee, then x * y = k, as the local Jupiter computes it from the node's reserves.
    const afterFee = sellAmount - (sellAmount * 30n) / 10_000n;
    const buyAmount = (r.usdc * afterFee) / (r.sol + afterFee);
    expect(quote).toEqual({
      ecosystem: "solana",
      chain_id: 792703810,
      sell_token: NATIVE_MINT,
      buy_token: solana.usdcMint,
      sell_amount: String(sellAmount),
      buy_amount: String(buyAmount),
      min_buy_amount: String((buyAmount * 9_900n) / 10_000n),
      slippage_bps: 100,
      price_impact_pct: expect.stringMatching(/^[0-9.]+$/),
      route: [{ amm_key: solana.pool.key.publicKey, label: expect.any(String), percent: 100 }],
      context_slot: expect.any(Number),
    });
    const unknownMint = Keypair.generate().publicKey.toBase58();
    const refusals: [Record<string, unknown>, number][] = [
      [{ sell_token: unknownMint, sell_amount: "1000" }, 409],
      [{ sell_token: "native", sell_amount: "1000" }, 400],
      [{ sell_token: NATIVE_MINT, sell_amount: "1000", taker: wallet.address }, 400],
      [{ sell_token: solana.usdcMint, sell_amount: "1000" }, 400], // USDC for USDC
    ];
    for (const [body, status] of refusals) {
      const answer = await quoteRequest(body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(await answer.json()).toEqual({ error: expect.any(String) });
    }
  });

  it("answers 502 { error } while Jupiter is down (a quote too), changes nothing, and recovers when it returns", async () => {
    const other = Keypair.generate().publicKey.toBase58();
    // An amount no earlier case asked: the quote is not in the cache.
    const quote = () => quoteRequest({ sell_token: NATIVE_MINT, sell_amount: "123456789" });
    await expectLookupsDownThenBack(
      "jupiter",
      other,
      { address: other, ecosystem: "solana", balances: [] },
      quote,
    );
    expect((await quote()).status).toBe(200);
  });
});

describe("a provider server stopped mid-test", () => {
  it("answers 502 { error } while Alchemy is down, changes nothing, and recovers when it returns", async () => {
    const other = privateKeyToAccount(generatePrivateKey()).address;
    await expectLookupsDownThenBack("alchemy", other, {
      address: other.toLowerCase(),
      ecosystem: "evm",
      balances: [],
    });
  });

  it("answers 502 { error } while 0x is down and quotes again when it returns", async () => {
    await servers.zeroex.child?.stop();
    const body = JSON.stringify({
      chain_id: chains[1].chainId,
      sell_token: "native",
      sell_amount: "1000000000000000",
      taker: wallet.address,
    });
    const request = () =>
      fetch(`${service.url}/quote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
    const down = await request();
    expect(down.status).toBe(502);
    expect(await down.json()).toEqual({ error: expect.any(String) });
    await startServer("zeroex");
    const back = await request();
    expect(back.status).toBe(200);
    expect(await back.json()).toMatchObject({
      chain_id: chains[1].chainId,
      sell_amount: "1000000000000000",
      buy_token: chains[1].usdc.toLowerCase(),
    });
  });
});
