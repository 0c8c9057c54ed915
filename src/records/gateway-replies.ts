import * as f from "../record-fields/fields.ts";
import { sessionState } from "./session-state.ts";

/** gateway.replies: the owning actor's answer to a command a gateway waits on. */
export const gatewayReply = f.record({
  gatewayId: f.string,
  correlationId: f.string,
  /** HTTP status the gateway should answer with. */
  status: f.number,
  /** Rejection code, or null on success. */
  code: f.nullable(f.string),
  message: f.nullable(f.string),
  /** The session after the command (null when it does not exist). */
  session: f.nullable(sessionState),
});
export type GatewayReply = f.Infer<typeof gatewayReply>;
