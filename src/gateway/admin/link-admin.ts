import { randomBytes, randomUUID } from "node:crypto";
import type { LinkCommand } from "../../domain/link/types.ts";
import type { GatewayReply } from "../../records/gateway-replies.ts";
import type { LinkRow, LinkStore } from "../../store/payment-links.ts";
import { gatewayError, replyError } from "../errors.ts";
import { ReplyTimeoutError } from "../ports.ts";

/**
 * What the merchant's /v1/payment_links routes do to a link: send the command to the link's actor
 * and answer once the projection shows the change, so a link created is readable (and payable at
 * its URL) on the next request, from any gateway.
 */
export interface LinkAdminDeps {
  /** Sends a command to the owning link actor and waits (bounded) for its reply. */
  send(command: LinkCommand): Promise<GatewayReply>;
  store: Pick<LinkStore, "link">;
  /** How long to wait for the projection to show an accepted change (then ReplyTimeoutError). */
  timeoutMs: number;
  now?: () => number;
}

export interface NewLink {
  /** USDC base units, a positive decimal integer string. */
  amount: string;
  description: string | null;
  /** Unix ms, or null. */
  expiresAt: number | null;
}

export interface LinkAdmin {
  create(merchantId: string, link: NewLink): Promise<LinkRow>;
  /** The merchant's link, or null (unknown, or another merchant's: the same answer). */
  get(merchantId: string, linkId: string): Promise<LinkRow | null>;
  /** Deactivates the merchant's link (again: no change); 404 link_not_found for another's. */
  deactivate(merchantId: string, linkId: string): Promise<LinkRow>;
}

/** 128 random bits, base64url: unguessable, so a link is reachable only by those given its URL. */
export const newSlug = (): string => randomBytes(16).toString("base64url");
export const newLinkId = (): string => `plink_${randomUUID().replaceAll("-", "")}`;

export function createLinkAdmin(deps: LinkAdminDeps): LinkAdmin {
  const now = deps.now ?? Date.now;
  const send = async (command: LinkCommand) => {
    const refused = replyError(await deps.send(command));
    if (refused) throw refused;
  };
  const meta = () => ({ commandId: randomUUID(), issuedAt: now(), replyTo: null });
  /** The link once the projection shows `done` for it. */
  const waitFor = async (what: string, linkId: string, done: (row: LinkRow) => boolean) => {
    const deadline = now() + deps.timeoutMs;
    for (;;) {
      const row = await deps.store.link(linkId);
      if (row && done(row)) return row;
      if (now() > deadline) throw new ReplyTimeoutError(`the link projection did not show ${what} in time`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const get = async (merchantId: string, linkId: string) => {
    const row = await deps.store.link(linkId);
    return row?.merchantId === merchantId ? row : null;
  };
  return {
    async create(merchantId, link) {
      const linkId = newLinkId();
      await send({
        type: "CreateLink",
        data: { linkId, merchantId, slug: newSlug(), ...link },
        metadata: meta(),
      });
      return waitFor("the new link", linkId, () => true);
    },
    get,
    async deactivate(merchantId, linkId) {
      // Unknown and another merchant's read the same: nothing is sent for either.
      if (!(await get(merchantId, linkId))) throw gatewayError("link_not_found");
      await send({ type: "DeactivateLink", data: { linkId, merchantId }, metadata: meta() });
      return waitFor("the deactivation", linkId, (row) => row.deactivatedAt !== null);
    },
  };
}
