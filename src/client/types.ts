import type { z } from "zod";
import type {
  balancesResponseSchema,
  swapQuoteBodySchema,
  swapQuoteResponseSchema,
  tokenOptionSchema,
  tokenOptionsResponseSchema,
} from "../api/providers.ts";
import type {
  createSessionBodySchema,
  createSessionResponseSchema,
  sessionSchema,
  standingRefundSchema,
} from "../api/sessions.ts";
import type {
  commitBodySchema,
  commitResponseSchema,
  intentWireSchema,
  quoteResponseSchema,
  refundAllBodySchema,
  refundAllResponseSchema,
  refundBodySchema,
  refundResponseSchema,
  standingRefundResponseSchema,
} from "../api/settlement.ts";
import type {
  blockhashResponseSchema,
  createSolanaSessionBodySchema,
  createSolanaSessionResponseSchema,
  solanaBurnerBodySchema,
  solanaBurnerResponseSchema,
  solanaCommitBodySchema,
  solanaRefundBodySchema,
  solanaRefundResponseSchema,
  solanaSweepTermsSchema,
} from "../api/solana.ts";
import type { stealthWithdrawBodySchema, stealthWithdrawResponseSchema } from "../api/stealth-withdraw.ts";

// The wire types of the client, inferred from the routes' own zod schemas (src/api/),
// so they cannot drift from what the service validates and serialises. Type-only imports: they are
// erased when the client is compiled or bundled, so neither zod nor the gateway (nor fastify) is
// loaded by the client at run time. A unit test (client-bundle) holds the client to that.

/** The Session object of `GET /sessions/:id` and of every `status` event. */
export type Session = z.output<typeof sessionSchema>;
export type SessionStatus = Session["status"];

/** The body of `POST /sessions` as a caller writes it (`flow` may be left out). */
export type CreateSessionBody = z.input<typeof createSessionBodySchema>;

/** The answer of `POST /sessions`: `{ id, status, expires_at }`. */
export type CreateSessionResponse = z.output<typeof createSessionResponseSchema>;

// The settlement routes (interface.md: Intent, Refund, Standing refund; commit, quote, refund,
// standing-refund, refund-all). Request bodies are the schemas' input (every uint256 a decimal
// string), answers their output.

type Address = `0x${string}`;
type Hex = `0x${string}`;

/**
 * The Intent in wire form (snake_case; uint256 fields decimal strings), with addresses and the salt
 * typed as 0x strings for signing. Held to the gateway's schema below: the same keys, and assignable
 * to what it accepts.
 */
export interface IntentWire {
  dest_chain_id: number;
  dest_addr: Address;
  /** The on-chain floor of the swap's output (of the USDC itself for a USDC deposit), decimal. */
  min_out: string;
  /** Unix seconds. */
  deadline: number;
  /** 32 bytes of 0x hex, unique per Intent. */
  salt: Hex;
  /** The detected token (the zero address for the native coin). */
  in_token: Address;
  /** The detected amount, decimal. */
  max_in: string;
  app_fee_bps: number;
  app_fee_recipient: Address;
}

/** A body the client writes: the same keys as the gateway's schema, and assignable to what it accepts. */
type Matches<T, Schema> = [keyof T] extends [keyof Schema]
  ? [keyof Schema] extends [keyof T]
    ? T extends Schema
      ? true
      : false
    : false
  : false;

/** The body of `POST /sessions/:id/commit`. */
export type CommitBody = z.input<typeof commitBodySchema>;
/** The answer of `POST /sessions/:id/commit`: `id`, `status`, `fee_bps`, `app_fee_bps`, `app_fee_recipient`. */
export type CommitResponse = z.output<typeof commitResponseSchema>;
/** The answer of `GET /sessions/:id/quote`: `estimated_out` and `suggested_min_out` (decimal USDC), and what was quoted. */
export type Quote = z.output<typeof quoteResponseSchema>;
/** The body of `POST /sessions/:id/refund`: a burner-signed Refund for one chain. */
export interface RefundBody {
  /** The zero address for the native coin. */
  token: Address;
  to: Address;
  /** Base units, decimal. */
  amount: string;
  /** Unix seconds. */
  deadline: number;
  salt: Hex;
  signature: Hex;
  chain_id: number;
}
/** The answer of `POST /sessions/:id/refund`: `tx_hash`, `to`, `token`. */
export type RefundResponse = z.output<typeof refundResponseSchema>;
/** A standing refund: one recipient, one deadline, one burner signature per source chain. */
export interface StandingRefundWire {
  to: Address;
  /** Unix seconds: until then only the service's keeper may run it, after it anyone. */
  deadline: number;
  /** Source chain id (decimal string) to the burner's StandingRefund signature on that chain. */
  signatures: Record<string, Hex>;
}
/** The answer of `POST /sessions/:id/standing-refund`. */
export type StandingRefundResponse = z.output<typeof standingRefundResponseSchema>;
/** The body of `POST /sessions/:id/refund-all`: an ERC-20, or `native` for raw ETH. */
export type RefundAllBody = z.input<typeof refundAllBodySchema>;
/** The answer of `POST /sessions/:id/refund-all`: `tx_hash`, `refund_address`, `token`, `amount: "full"`. */
export type RefundAllResponse = z.output<typeof refundAllResponseSchema>;

// The Solana routes (docs/SOLANA.md): base58 addresses, amounts in base units or lamports.

/** The body of `POST /sessions/solana`. */
export type CreateSolanaSessionBody = z.input<typeof createSolanaSessionBodySchema>;
/** The answer of `POST /sessions/solana`: `{ id, status, expires_at, sweep }`. */
export type CreateSolanaSessionResponse = z.output<typeof createSolanaSessionResponseSchema>;
/** What the sweep the payer's client signs must pay: fee payer, fees, where the delivery goes. */
export type SolanaSweepTerms = z.output<typeof solanaSweepTermsSchema>;
/** The body of `POST /sessions/:id/solana-burner`. */
export type SolanaBurnerBody = z.input<typeof solanaBurnerBodySchema>;
/** The answer of `POST /sessions/:id/solana-burner`: `{ id, status }`. */
export type SolanaBurnerResponse = z.output<typeof solanaBurnerResponseSchema>;
/** The answer of `GET /solana/blockhash`, as web3.js's `getLatestBlockhash` answers it. */
export type SolanaBlockhash = z.output<typeof blockhashResponseSchema>;
/** The body of `POST /sessions/:id/commit` on a Solana-origin session: the burner-signed sweep. */
export type SolanaCommitBody = z.input<typeof solanaCommitBodySchema>;
/** The body of `POST /sessions/:id/solana-refund`: the burner-signed transfer of its whole balance. */
export type SolanaRefundBody = z.input<typeof solanaRefundBodySchema>;
/** The answer of `POST /sessions/:id/solana-refund` once confirmed: `{ id, signature, to, token, amount }`. */
export type SolanaRefundResponse = z.output<typeof solanaRefundResponseSchema>;

// Compile-time only: a body the client writes that the gateway's schema would not take fails tsc.
const bodiesMatch: [
  Matches<IntentWire, z.input<typeof intentWireSchema>>,
  Matches<RefundBody, z.input<typeof refundBodySchema>>,
  Matches<StandingRefundWire, z.input<typeof standingRefundSchema>>,
] = [true, true, true];
void bodiesMatch;

/** One thing a wallet can pay with (GET /sessions/:id/token-options, GET /balances). */
export type TokenOption = z.output<typeof tokenOptionSchema>;
export type TokenOptions = z.output<typeof tokenOptionsResponseSchema>;
export type Balances = z.output<typeof balancesResponseSchema>;
/** POST /quote's body as sent (amounts as decimal strings). */
export type SwapQuoteBody = z.input<typeof swapQuoteBodySchema>;
/** POST /quote's answer: `ecosystem` says which of the two it is. */
export type SwapQuote = z.output<typeof swapQuoteResponseSchema>;
/** An EVM quote: the amounts, `allowance_target`, and the `transaction` the wallet sends as is. */
export type EvmSwapQuote = Extract<SwapQuote, { ecosystem: "evm" }>;
/** A Solana quote: the aggregator's amounts and route for base58 mints; no transaction. */
export type SolanaSwapQuote = Extract<SwapQuote, { ecosystem: "solana" }>;
/** The body of `POST /stealth/withdraw`: the stealth key's authorization and Withdraw (docs/STEALTH.md). */
export type StealthWithdrawBody = z.input<typeof stealthWithdrawBodySchema>;
/** The answer of `POST /stealth/withdraw`: `tx_hash`, `destination`, `amount`, `fee`. */
export type StealthWithdrawResponse = z.output<typeof stealthWithdrawResponseSchema>;
