import { replyError } from "../gateway/errors.ts";
import { type CommandPort, type LiveUpdatesPort, ReplyTimeoutError } from "../gateway/ports.ts";
import type { SessionReadModel } from "./read-model.ts";

/**
 * Read-your-writes across gateways: a command's reply is handed back only once every gateway can
 * read the version it carries. The projector publishes a state on session.state right after its
 * write to Cassandra (LOCAL_QUORUM, like every read) succeeded, so a state of version v there means
 * any gateway's read answers v or newer; a GET or SSE connect on another gateway right after a 2xx
 * then never answers 404 and never an older version.
 *
 * The session is watched before the command goes out, so its new state cannot slip by. A state
 * published before that (a retried command, answered with what it created earlier) never arrives:
 * if none came within `confirmAfterMs`, the read model is read once, and once more at the deadline
 * (the gateway's consumer may have missed the record while it rejoined). Past `timeoutMs` from the
 * send, the command fails like an unanswered one (ReplyTimeoutError: 503, safe to retry with the
 * same Idempotency-Key), because a 2xx must mean "readable everywhere".
 */
export function awaitReadable(
  commands: CommandPort,
  deps: {
    live: LiveUpdatesPort;
    readModel: Pick<SessionReadModel, "getView">;
    /** The bound of the whole send: the owner's reply and the projection. */
    timeoutMs: number;
    /** How long to wait for session.state before asking the read model. */
    confirmAfterMs?: number;
  },
): CommandPort {
  const confirmAfterMs = deps.confirmAfterMs ?? DEFAULT_CONFIRM_AFTER_MS;
  return {
    async send(command) {
      const deadline = Date.now() + deps.timeoutMs;
      const sessionId = command.data.sessionId;
      let seen = 0;
      let wanted = Number.POSITIVE_INFINITY;
      let wake = () => {};
      const unsubscribe = deps.live.subscribe(sessionId, (state) => {
        seen = Math.max(seen, state.version);
        if (seen >= wanted) wake();
      });
      /** Resolves true once a state of the wanted version has arrived, false after `ms`. */
      const arrives = (ms: number) =>
        new Promise<boolean>((resolve) => {
          if (seen >= wanted) return resolve(true);
          const timer = setTimeout(() => resolve(seen >= wanted), Math.max(0, ms));
          wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
      const stored = async () => ((await deps.readModel.getView(sessionId))?.version ?? 0) >= wanted;
      try {
        const reply = await commands.send(command);
        // A rejection changed nothing; an accepted command's reply carries the state it made.
        if (replyError(reply) !== null || reply.session === null) return reply;
        wanted = reply.session.version;
        if (await arrives(Math.min(confirmAfterMs, deadline - Date.now()))) return reply;
        if (await stored()) return reply;
        if (await arrives(deadline - Date.now())) return reply;
        if (await stored()) return reply;
        throw new ReplyTimeoutError("the session's new state was not readable in time");
      } finally {
        unsubscribe();
      }
    },
  };
}

/**
 * The projector's write and publish take milliseconds when it keeps up (PERFORMANCE.md, "Read-your-
 * writes across gateways"); only a retried command waits this long, so it stays well below the
 * latency a client would notice, and spares Cassandra a read per command otherwise.
 */
const DEFAULT_CONFIRM_AFTER_MS = 200;
