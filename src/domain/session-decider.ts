import type { SessionInput } from "./commands.ts";
import { decide } from "./decide.ts";
import type { Decider } from "./decider.ts";
import type { SessionEvent } from "./events.ts";
import { evolve, evolveInPlace } from "./evolve.ts";
import type { SessionMessage } from "./messages.ts";
import type { RejectionCode } from "./rejections.ts";
import { initialState, type SessionState } from "./types.ts";

/** The session entity's pure core as one value: what the actor host, the projector and replay run. */
export const sessionDecider: Decider<
  SessionInput,
  SessionEvent,
  SessionState,
  SessionMessage,
  RejectionCode
> = {
  initialState,
  decide,
  evolve,
  evolveInPlace,
  versionOf: (state) => state?.version ?? 0,
};
