import type { SessionInput } from "./commands.ts";
import { decide } from "./decide.ts";
import type { Decider } from "./decider.ts";
import type { SessionEvent } from "./events.ts";
import { evolve, evolveInPlace } from "./evolve.ts";
import type { SessionMessage } from "./messages.ts";
import type { RejectionCode } from "./rejections.ts";
import { DEFAULT_SESSION_POLICY, type SessionPolicy } from "./relayer-work.ts";
import { initialState, type SessionState } from "./types.ts";

type SessionDecider = Decider<SessionInput, SessionEvent, SessionState, SessionMessage, RejectionCode>;

/**
 * The session entity's pure core under the operator's limits on relayer-paid work: what the actor
 * host runs. The projector and replay only evolve, which no policy changes.
 */
export const sessionDeciderWith = (policy: SessionPolicy): SessionDecider => ({
  initialState,
  decide: (command, state) => decide(command, state, policy),
  evolve,
  evolveInPlace,
  versionOf: (state) => state?.version ?? 0,
});

/** The session entity's pure core as one value, with the default policy. */
export const sessionDecider: SessionDecider = sessionDeciderWith(DEFAULT_SESSION_POLICY);
