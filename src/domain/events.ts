import type { CreateSession } from "./commands.ts";
import type { Transfer } from "./types.ts";

export interface EventMetadata {
  sessionId: string;
  /** The session's version after this event: 1 for SessionCreated, +1 per event. */
  version: number;
  /** Unix ms: the issuedAt of the command that caused it. */
  occurredAt: number;
  /** The command that caused it, for idempotent retries and tracing. */
  commandId: string;
}

export interface SessionCreated {
  type: "SessionCreated";
  /** Everything the command carried but the id, which the metadata holds. */
  data: Omit<CreateSession["data"], "sessionId">;
  metadata: EventMetadata;
}

/**
 * A confirmed transfer reached the burner. The first one moves a pending session to detected; one
 * already known (same chain, tx, log index) in a new block replaces the old record (re-mined).
 */
export interface DepositObserved {
  type: "DepositObserved";
  data: { transfer: Transfer };
  metadata: EventMetadata;
}

/** A reorg dropped the block of a deposit observed earlier; the deposit no longer counts. */
export interface DepositRetracted {
  type: "DepositRetracted";
  data: { chainId: number; txHash: Transfer["txHash"]; logIndex: number };
  metadata: EventMetadata;
}

export interface SessionExpired {
  type: "SessionExpired";
  data: Record<string, never>;
  metadata: EventMetadata;
}

export type SessionEvent = SessionCreated | DepositObserved | DepositRetracted | SessionExpired;
export type SessionEventType = SessionEvent["type"];
