import type { SolanaGatewaySide } from "../chains/solana-side.ts";
import type { SessionCommand } from "../domain/commands.ts";
import type { Address } from "../domain/types.ts";
import type { GatewayReply } from "../records/gateway-replies.ts";
import type { SessionStateRecord } from "../records/session-state.ts";
import { BaseError } from "../support/errors.ts";

/**
 * What the HTTP gateway needs from the rest of the service. The real implementations talk to Kafka
 * (commands, replies, live updates) and Cassandra (read model); the gateway itself stays stateless.
 */

/** Sends a command to the session's owning actor and waits (bounded) for its reply. */
export interface CommandPort {
  /** Rejects with ReplyTimeoutError when the owner does not answer in time (answer 503: safe to retry). */
  send(command: SessionCommand): Promise<GatewayReply>;
}

/** Retryable: the command may or may not have been applied, and a retry with the same id is applied once. */
export class ReplyTimeoutError extends BaseError {
  override name = "ReplyTimeoutError";
  readonly code = "reply_timeout";
  readonly retryable = true;
}

/** Reads the session read model; never older than a version this gateway already handed out. */
export interface SessionReadPort {
  get(sessionId: string): Promise<SessionStateRecord | null>;
}

/** Pushes every new state of a session (from the session.state topic) to listeners. */
export interface LiveUpdatesPort {
  subscribe(sessionId: string, listener: (state: SessionStateRecord) => void): () => void;
}

/**
 * What the settlement routes read from a chain on a request path: one try each, bounded by a short
 * timeout. An RPC that does not answer (refused, timed out, an error reply) rejects with
 * ChainUnavailableError, which the gateway answers 502 having changed nothing.
 */
export interface ChainReadPort {
  /**
   * The USDC the source chain's pool gives for `amountIn` of `token` (the zero address: the native
   * coin, quoted through WETH), over the router and path the delegate swaps with. `usdc` when
   * `token` is the chain's USDC (nothing is swapped); `no_route` when the router has no pool.
   */
  quote(
    chainId: number,
    token: Address,
    amountIn: bigint,
  ): Promise<{ kind: "quote"; estimatedOut: bigint } | { kind: "usdc" } | { kind: "no_route" }>;
  /**
   * Proves the chain's RPC answers, before a command that leads to a transaction is sent: reads the
   * balance `address` (the burner) holds of `token` (default the native coin); null when `token`
   * is no ERC-20. Only refund-all judges the balance (nothing left: no new transaction).
   */
  probe(chainId: number, address: Address, token?: Address): Promise<bigint | null>;
  /**
   * What `gas` costs at the chain's gas price now, in base units of `token`: wei for the native
   * coin, else through the chain's DEX (WETH to USDC, then USDC to the token); null when the DEX
   * has no pool to price the token.
   */
  gasValue(chainId: number, token: Address, gas: bigint): Promise<bigint | null>;
}

/** Retryable: the chain's RPC did not answer; nothing was sent, so the same request may succeed later. */
export class ChainUnavailableError extends BaseError {
  override name = "ChainUnavailableError";
  readonly code = "chain_unavailable";
  readonly retryable = true;
}

export interface HealthReport {
  healthy: boolean;
  checks: {
    database: { ok: boolean; latency_ms: number | null; error: string | null };
    indexers: Array<{
      chain_id: number;
      ok: boolean;
      last_block: number | null;
      lag_seconds: number | null;
      error: string | null;
    }>;
    relayers: Array<{
      chain_id: number;
      ok: boolean;
      address: string | null;
      balance_wei: string | null;
      min_balance_wei: string;
      error: string | null;
    }>;
  };
}

export interface HealthPort {
  check(): Promise<HealthReport>;
}

/** A Solana chain's side for the Solana routes, built by its adapter (src/chains/solana-side.ts). */
export type SolanaPort = SolanaGatewaySide;
