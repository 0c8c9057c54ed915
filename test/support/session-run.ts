import type {
  CommandMetadata,
  Session,
  SessionCommand,
  SessionInput,
  SessionMessage,
  SessionState,
} from "../../src/domain/index.ts";
import type { SessionPolicy } from "../../src/domain/relayer-work.ts";
import { sessionDeciderWith } from "../../src/domain/session-decider.ts";
import { TEST_POLICY } from "./money.ts";

// The session core driven input by input in unit tests, and the Solana-origin session's inputs the
// Solana tests (session, sweep, fast fill) start from.

/**
 * A session run: each `send` decides against the current state and folds what was accepted, as the
 * actor host does. `setup` must be accepted (a refused one throws: the test would start elsewhere).
 */
export function sessionRun(...setup: SessionInput[]) {
  return sessionRunUnder(TEST_POLICY, ...setup);
}

/** A session run under another policy than the test chains' default (a smaller relayer budget). */
export function sessionRunUnder(policy: SessionPolicy, ...setup: SessionInput[]) {
  const sessionDecider = sessionDeciderWith(policy);
  let state: SessionState = null;
  let last: ReturnType<typeof sessionDecider.decide> | null = null;
  const send = (input: SessionInput) => {
    const d = sessionDecider.decide(input, state);
    last = d;
    if (d.ok) for (const e of d.events) state = sessionDecider.evolve(state, e);
    return d;
  };
  for (const input of setup) {
    const d = send(input);
    if (!d.ok) throw new Error(`setup input ${input.type} refused: ${d.rejection.code}`);
  }
  const lastOf = () => {
    if (last === null) throw new Error("nothing was sent");
    return last;
  };
  return {
    send,
    get state(): Session {
      return state as Session;
    },
    /** The state as the decider sees it: null before the session exists. */
    get stateOrNull(): SessionState {
      return state;
    },
    /** Sets the state directly: for a fold the test builds itself (an event no command of the test leads to). */
    fold(event: Parameters<typeof sessionDecider.evolve>[1]) {
      state = sessionDecider.evolve(state, event);
    },
    /** The last decision. */
    get last() {
      return lastOf();
    },
    events: () => {
      const d = lastOf();
      return d.ok ? d.events.map((e) => e.type) : [];
    },
    outbox: (): SessionMessage[] => lastOf().outbox.filter((m) => m.type !== "Reply"),
    rejection: () => {
      const d = lastOf();
      return d.ok ? null : d.rejection.code;
    },
  };
}

/** The local Solana node's chain id (docs/SOLANA.md). */
export const SOLANA_CHAIN_ID = 792703810;

type CreateSession = Extract<SessionCommand, { type: "CreateSession" }>;
type CreateSessionData = CreateSession["data"];

/**
 * A Solana-origin P2P session's creation: no EVM burner authorization, paid to `destAddress` on
 * Solana unless `over` names another chain; `over` replaces any field.
 */
export function solanaSessionCreated(
  over: Partial<CreateSessionData> & Pick<CreateSessionData, "sessionId" | "destAddress">,
  metadata: CommandMetadata,
): CreateSession {
  return {
    type: "CreateSession",
    data: {
      flow: "p2p_request",
      merchantId: null,
      pinnedOnly: false,
      burner: null,
      auth: null,
      destChainId: SOLANA_CHAIN_ID,
      appFeeBps: 0,
      appFeeRecipient: "0x0000000000000000000000000000000000000000",
      standingRefund: null,
      stealth: null,
      stealthDestinations: null,
      expiresAt: Math.floor(metadata.issuedAt / 1000) + 1800,
      expectedAmount: null,
      pinnedDestinations: [],
      clientSecretHash: null,
      originChainId: SOLANA_CHAIN_ID,
      appFeeRecipientSol: null,
      refundAddress: null,
      ...over,
    },
    metadata,
  };
}

type RecordTransfer = Extract<SessionCommand, { type: "RecordTransfer" }>;
type Deposit = RecordTransfer["data"]["transfer"];

/**
 * A deposit into a Solana burner as the indexer records it (the slot as block number, the signature
 * as transaction, the blockhash as block hash), at `finality`; `over` replaces any transfer field.
 */
export function solanaDeposit(
  sessionId: string,
  transfer: Pick<Deposit, "token" | "amount"> & Partial<Deposit>,
  finality: "confirmed" | "finalized",
  metadata: CommandMetadata,
): RecordTransfer {
  return {
    type: "RecordTransfer",
    data: {
      sessionId,
      transfer: {
        chainId: SOLANA_CHAIN_ID,
        txHash: "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
        logIndex: 0,
        blockNumber: 100n,
        blockHash: "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn",
        from: "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T",
        ...transfer,
      },
      terms: null,
      finality,
    },
    metadata,
  };
}
