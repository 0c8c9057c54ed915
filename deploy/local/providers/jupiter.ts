// Our local Jupiter: the documented wire forms (`x-api-key` header) of `GET /price/v3?ids=`,
// `GET /tokens/v2/search?query=`, `GET /ultra/v1/holdings/{owner}` and `GET /swap/v1/quote`, answered from
// the local Solana node: holdings read from the node at the time of the request, SOL's price and the
// quotes from the local SOL/USDC pool's reserves (deploy/local/solana/pool.ts; USDC = 1). The mints it
// knows are the two the pool trades, USDC and SOL (the native mint): any other mint is unknown to it, as a
// mint Jupiter has never indexed is. By hand: `npx tsx deploy/local/providers/jupiter.ts`.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import {
  AccountLayout,
  getAssociatedTokenAddressSync,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import { Connection, PublicKey } from "@solana/web3.js";
import Fastify, { type FastifyInstance } from "fastify";
import { serveLogos } from "./logos.ts";

/** What the server reads: the node, its USDC mint and the pool (the stack file's `solana` entry). */
export interface LocalSolanaMarket {
  rpcUrl: string;
  usdcMint: string;
  pool: { key: { publicKey: string }; usdcAccount: string };
}

interface KnownToken {
  id: string;
  name: string;
  symbol: string;
  decimals: number;
  tokenProgram: string;
}

/** The pool's fee on the amount sold, as a constant-product AMM takes it (30 bps). */
const POOL_FEE_BPS = 30n;
/** Jupiter's Price API takes at most 50 ids a request. */
const MAX_IDS = 50;

export function jupiterServer(opts: { market: LocalSolanaMarket; apiKey: string }): FastifyInstance {
  const { market } = opts;
  const connection = new Connection(market.rpcUrl, "confirmed");
  const native = NATIVE_MINT.toBase58();
  const known = new Map<string, KnownToken>([
    [
      market.usdcMint,
      {
        id: market.usdcMint,
        name: "USD Coin",
        symbol: "USDC",
        decimals: 6,
        tokenProgram: TOKEN_PROGRAM_ID.toBase58(),
      },
    ],
    [
      native,
      {
        id: native,
        name: "Wrapped SOL",
        symbol: "SOL",
        decimals: 9,
        tokenProgram: TOKEN_PROGRAM_ID.toBase58(),
      },
    ],
  ]);

  /** The pool's reserves now, with the slot they were read at. */
  async function reserves() {
    const pool = new PublicKey(market.pool.key.publicKey);
    const [lamports, usdc] = await Promise.all([
      connection.getBalanceAndContext(pool),
      connection.getTokenAccountBalance(new PublicKey(market.pool.usdcAccount)),
    ]);
    return { sol: BigInt(lamports.value), usdc: BigInt(usdc.value.amount), slot: lamports.context.slot };
  }

  /** USD for one whole token: USDC is the dollar, SOL is the pool's USDC per SOL. */
  function usdPrice(mint: string, r: { sol: bigint; usdc: bigint }): number | null {
    if (mint === market.usdcMint) return 1;
    if (mint === native) return r.sol === 0n ? null : Number(r.usdc * 10n ** 9n) / 1e6 / Number(r.sol);
    return null;
  }

  const app = Fastify({ logger: false });
  app.addHook("onRequest", async (req, reply) => {
    if (req.url.startsWith("/logos/")) return;
    if (req.headers["x-api-key"] !== opts.apiKey) return reply.code(401).send({ error: "Unauthorized" });
  });
  const logo = (req: { protocol: string; host: string }, symbol: string) =>
    `${req.protocol}://${req.host}/logos/${symbol}.svg`;

  app.get<{ Querystring: { ids?: string } }>("/price/v3", async (req, reply) => {
    const ids = splitList(req.query.ids);
    if (ids.length === 0 || ids.length > MAX_IDS)
      return reply.code(400).send({ error: `ids: 1 to ${MAX_IDS} comma-separated mints` });
    const r = await reserves();
    const answer: Record<string, { usdPrice: number; blockId: number; decimals: number }> = {};
    for (const id of ids) {
      const token = known.get(id);
      const price = token ? usdPrice(id, r) : null;
      // Unpriced mints are left out, as Jupiter does.
      if (token && price !== null)
        answer[id] = { usdPrice: price, blockId: r.slot, decimals: token.decimals };
    }
    return answer;
  });

  app.get<{ Querystring: { query?: string } }>("/tokens/v2/search", async (req, reply) => {
    const terms = splitList(req.query.query);
    if (terms.length === 0 || terms.length > 100)
      return reply.code(400).send({ error: "query: a symbol, a name, or up to 100 comma-separated mints" });
    const r = await reserves();
    const found = [...known.values()].filter((t) =>
      terms.some(
        (q) =>
          q === t.id ||
          t.symbol.toLowerCase() === q.toLowerCase() ||
          t.name.toLowerCase().includes(q.toLowerCase()),
      ),
    );
    return found.map((t) => ({
      ...t,
      icon: logo(req, t.symbol),
      usdPrice: usdPrice(t.id, r),
      isVerified: true,
    }));
  });

  app.get<{ Params: { owner: string } }>("/ultra/v1/holdings/:owner", async (req, reply) => {
    let owner: PublicKey;
    try {
      owner = new PublicKey(req.params.owner);
    } catch {
      return reply.code(400).send({ error: "Invalid address" });
    }
    const [lamports, ...perProgram] = await Promise.all([
      connection.getBalance(owner),
      ...[TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID].map((programId) =>
        connection
          .getTokenAccountsByOwner(owner, { programId })
          .then((r) => ({ programId, accounts: r.value })),
      ),
    ]);
    const tokens: Record<string, unknown[]> = {};
    for (const { programId, accounts } of perProgram) {
      for (const { pubkey, account } of accounts) {
        const data = AccountLayout.decode(account.data.subarray(0, AccountLayout.span));
        const mint = data.mint.toBase58();
        // Decimals of mints it does not know are read from the mint, as an indexer would.
        const decimals = known.get(mint)?.decimals ?? (await mintDecimals(connection, data.mint));
        const list = tokens[mint] ?? [];
        tokens[mint] = list;
        list.push({
          account: pubkey.toBase58(),
          ...uiAmounts(data.amount, decimals),
          isFrozen: data.state === 2,
          isAssociatedTokenAccount: getAssociatedTokenAddressSync(data.mint, owner, true, programId).equals(
            pubkey,
          ),
          decimals,
          programId: programId.toBase58(),
        });
      }
    }
    return { ...uiAmounts(BigInt(lamports), 9), tokens };
  });

  app.get<{ Querystring: Record<string, string | undefined> }>("/swap/v1/quote", async (req, reply) => {
    const {
      inputMint = "",
      outputMint = "",
      amount = "",
      slippageBps = "50",
      swapMode = "ExactIn",
    } = req.query;
    if (!/^[1-9][0-9]{0,19}$/.test(amount) || !/^[0-9]{1,4}$/.test(slippageBps) || swapMode !== "ExactIn")
      return reply
        .code(400)
        .send({ error: "amount, slippageBps: integers; swapMode: ExactIn", errorCode: "INVALID_REQUEST" });
    const pair = new Set([inputMint, outputMint]);
    if (inputMint === outputMint || !pair.has(native) || !pair.has(market.usdcMint))
      return reply.code(400).send({ error: "No routes found", errorCode: "COULD_NOT_FIND_ANY_ROUTE" });
    const r = await reserves();
    const [reserveIn, reserveOut] = inputMint === native ? [r.sol, r.usdc] : [r.usdc, r.sol];
    const inAmount = BigInt(amount);
    const fee = (inAmount * POOL_FEE_BPS) / 10_000n;
    // x * y = k on what is left after the fee.
    const outAmount = (reserveOut * (inAmount - fee)) / (reserveIn + inAmount - fee);
    if (outAmount === 0n)
      return reply.code(400).send({ error: "No routes found", errorCode: "COULD_NOT_FIND_ANY_ROUTE" });
    const spot = Number(reserveOut) / Number(reserveIn);
    const priceImpact = 1 - Number(outAmount) / Number(inAmount - fee) / spot;
    return {
      inputMint,
      inAmount: inAmount.toString(),
      outputMint,
      outAmount: outAmount.toString(),
      otherAmountThreshold: ((outAmount * (10_000n - BigInt(slippageBps))) / 10_000n).toString(),
      swapMode,
      slippageBps: Number(slippageBps),
      platformFee: null,
      priceImpactPct: priceImpact.toFixed(8),
      routePlan: [
        {
          swapInfo: {
            ammKey: market.pool.key.publicKey,
            label: "Local constant-product pool",
            inputMint,
            outputMint,
            inAmount: inAmount.toString(),
            outAmount: outAmount.toString(),
            feeAmount: fee.toString(),
            feeMint: inputMint,
          },
          percent: 100,
        },
      ],
      contextSlot: r.slot,
    };
  });

  serveLogos(app, "#9945ff");
  return app;
}

function splitList(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function uiAmounts(amount: bigint, decimals: number) {
  const scale = 10n ** BigInt(decimals);
  const frac = (amount % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  const uiAmountString = `${amount / scale}${frac ? `.${frac}` : ""}`;
  return { amount: amount.toString(), uiAmount: Number(uiAmountString), uiAmountString };
}

async function mintDecimals(connection: Connection, mint: PublicKey): Promise<number> {
  const supply = await connection.getTokenSupply(mint).catch(() => null);
  return supply?.value.decimals ?? 0;
}

/** PROVIDER_SOLANA (JSON) when set, else the stack file's `solana` entry. */
function marketFromEnv(): LocalSolanaMarket {
  const text = process.env.PROVIDER_SOLANA;
  if (text) return JSON.parse(text) as LocalSolanaMarket;
  const stack = JSON.parse(readFileSync(process.env.STACK_FILE ?? ".local/stack.json", "utf8")) as {
    solana: LocalSolanaMarket;
  };
  return stack.solana;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = jupiterServer({ market: marketFromEnv(), apiKey: process.env.PROVIDER_API_KEY ?? "local" });
  const url = await app.listen({ host: "127.0.0.1", port: Number(process.env.PROVIDER_PORT ?? 0) });
  console.log(`jupiter listening on ${url}`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
