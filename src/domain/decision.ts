import type { CommandMetadata } from "./commands.ts";
import type { Decision as DeciderDecision } from "./decider.ts";
import type { EventMetadata, SessionEvent } from "./events.ts";
import type { SessionMessage } from "./messages.ts";
import type { Rejection, RejectionCode } from "./rejections.ts";
import type { Session } from "./types.ts";

/**
 * What a command does to a session: the events to append and the messages to send, or a typed
 * rejection. No events means "already done" (a retried command, a transfer seen before): the reply
 * answers with the current state and nothing is appended.
 */
export type Decision = DeciderDecision<SessionEvent, SessionMessage, RejectionCode>;

export const refuse = (rejection: Rejection): Decision => ({ ok: false, rejection, outbox: [] });
export const nothingToDo = (): Decision => ({ ok: true, events: [], outbox: [] });

/** Distributes Omit over a union: an event without its metadata, still discriminated by type. */
type Unmeta<E> = E extends SessionEvent ? Omit<E, "metadata"> : never;

/**
 * A decision being built: events get consecutive versions after the session's, every one caused by
 * the same command.
 */
export class DecisionBuilder {
  readonly events: SessionEvent[] = [];
  readonly outbox: SessionMessage[] = [];
  private version: number;

  constructor(
    private readonly sessionId: string,
    fromVersion: number,
    private readonly metadata: CommandMetadata,
  ) {
    this.version = fromVersion;
  }

  static for(session: Session, metadata: CommandMetadata): DecisionBuilder {
    return new DecisionBuilder(session.id, session.version, metadata);
  }

  get issuedAt(): number {
    return this.metadata.issuedAt;
  }

  append(event: Unmeta<SessionEvent>): this {
    const metadata: EventMetadata = {
      sessionId: this.sessionId,
      version: ++this.version,
      occurredAt: this.metadata.issuedAt,
      commandId: this.metadata.commandId,
    };
    this.events.push({ ...event, metadata } as SessionEvent);
    return this;
  }

  /** Adds a message to the outbox; null (a webhook of an anonymous session) sends nothing. */
  send(message: SessionMessage | null): this {
    if (message !== null) this.outbox.push(message);
    return this;
  }

  decision(): Decision {
    return { ok: true, events: this.events, outbox: this.outbox };
  }
}
