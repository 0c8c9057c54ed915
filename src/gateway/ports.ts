import type { SolanaGatewaySide } from "../chains/solana-side.ts";
import type { SessionCommand } from "../domain/commands.ts";
import type { GatewayReply } from "../records/gateway-replies.ts";
import type { SessionStateRecord } from "../records/session-state.ts";
import { BaseError } from "../support/errors.ts";

// The chain reads' port is the chains' (src/chains/gateway-chains.ts); the routes name it from here.
export { type ChainReadPort, ChainUnavailableError } from "../chains/gateway-chains.ts";

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

/** Retryable: the session exists (its state is on session.state) but the projector has not written its row yet. */
export class ProjectionBehindError extends BaseError {
  override name = "ProjectionBehindError";
  readonly code = "projection_behind";
  readonly retryable = true;
}

/** Reads the session read model; never older than a version this gateway already handed out. */
export interface SessionReadPort {
  get(sessionId: string, options?: SessionReadOptions): Promise<SessionStateRecord | null>;
}

export interface SessionReadOptions {
  /**
   * A state this gateway cached may answer (polling reads: GET /sessions/:id, the event stream).
   * Without it the read model itself is read: a command is decided on what every gateway can see,
   * never refused on a state another gateway has already answered superseded.
   */
  cached?: boolean;
}

/** Pushes every new state of a session (from the session.state topic) to listeners. */
export interface LiveUpdatesPort {
  subscribe(sessionId: string, listener: (state: SessionStateRecord) => void): () => void;
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
