import { TOPIC } from "../../topics/catalogue.ts";
import type { OutboxRecord } from "../actors/entity.ts";
import type { ReplyTo } from "../domain/merchant/types.ts";
import type { Codecs } from "../kafka/codecs.ts";

/**
 * The outbox of a configuration entity (merchant, payment link) whose only message is the reply to
 * the waiting gateway: on gateway.replies keyed by the gateway's id, with no session in it.
 */
export const replyOutbox = (codecs: Pick<Codecs, "gatewayReply">) => ({
  topics: [TOPIC.gatewayReplies],
  route: ({
    data: { replyTo, rejection },
  }: {
    data: { replyTo: ReplyTo; rejection: { code: string; message: string } | null };
  }): OutboxRecord => ({
    topic: TOPIC.gatewayReplies,
    key: replyTo.gatewayId,
    value: codecs.gatewayReply.encode({
      ...replyTo,
      status: rejection ? 409 : 200,
      code: rejection?.code ?? null,
      message: rejection?.message ?? null,
      session: null,
    }),
  }),
});
