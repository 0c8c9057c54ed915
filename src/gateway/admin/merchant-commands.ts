import { randomUUID } from "node:crypto";
import type { MerchantCommand, MerchantRejectionCode } from "../../domain/merchant/types.ts";
import type { GatewayReply } from "../../records/gateway-replies.ts";
import { TerminalError } from "../../support/errors.ts";
import { ReplyTimeoutError } from "../ports.ts";

/** The merchant actor refused the command: its code is one of the gateway's registered errors. */
export class MerchantRefusedError extends TerminalError<MerchantRejectionCode> {
  override name = "MerchantRefusedError";
}

export interface MerchantCommandDeps {
  /** Sends a command to the owning merchant actor and waits (bounded) for its reply. */
  send(command: MerchantCommand): Promise<GatewayReply>;
  /** How long to wait for the projection to show an accepted change (then ReplyTimeoutError). */
  timeoutMs: number;
  now?: (() => number) | undefined;
}

/**
 * Sending a command to a merchant's actor (a refusal thrown as MerchantRefusedError) and waiting,
 * bounded, until the projection shows its effect: what every admin of the merchant does.
 */
export function merchantCommands(deps: MerchantCommandDeps) {
  const now = deps.now ?? Date.now;
  const send = async (merchantId: string, type: MerchantCommand["type"], data: object) => {
    const command = {
      type,
      data: { merchantId, ...data },
      metadata: { commandId: randomUUID(), issuedAt: now(), replyTo: null },
    } as MerchantCommand;
    const reply = await deps.send(command);
    if (reply.code !== null)
      throw new MerchantRefusedError(reply.code as MerchantRejectionCode, reply.message ?? reply.code);
  };
  const waitFor = async (what: string, done: () => Promise<boolean>) => {
    const deadline = now() + deps.timeoutMs;
    while (!(await done())) {
      if (now() > deadline)
        throw new ReplyTimeoutError(`the merchant projection did not show ${what} in time`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { now, send, waitFor };
}
