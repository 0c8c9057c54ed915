import { describe, expect, it } from "vitest";
import { linkDecider } from "../../src/domain/link/decider.ts";
import type { LinkCommand, LinkEvent, LinkTerms } from "../../src/domain/link/types.ts";
import { codecs } from "../support/codecs.ts";
import { deciderSpec } from "../support/given-when-then.ts";

const LINK = "plink_0123456789abcdef01234567";
const TERMS: LinkTerms = {
  merchantId: "mer_a",
  slug: "Xk3_9aQ-pLmN2vRt",
  amount: "25000000",
  description: "A T-shirt",
  expiresAt: null,
};
const replyTo = { gatewayId: "g1", correlationId: "c1" };
const meta = (commandId: string) => ({ commandId, issuedAt: 1_800_000_000_000, replyTo });
const create = (commandId = "c-create"): LinkCommand => ({
  type: "CreateLink",
  data: { linkId: LINK, ...TERMS },
  metadata: meta(commandId),
});
const deactivate = (merchantId = "mer_a", commandId = "c-off"): LinkCommand => ({
  type: "DeactivateLink",
  data: { linkId: LINK, merchantId },
  metadata: meta(commandId),
});
const evMeta = (version: number, commandId: string) => ({
  linkId: LINK,
  version,
  occurredAt: 1_800_000_000_000,
  commandId,
});
const created: LinkEvent = { type: "LinkCreated", data: TERMS, metadata: evMeta(1, "c-create") };
const deactivated: LinkEvent = { type: "LinkDeactivated", data: {}, metadata: evMeta(2, "c-off") };

const given = deciderSpec(linkDecider);

describe("a link that does not exist", () => {
  it("is created with its terms, active", () => {
    given()
      .when(create())
      .then(created)
      .thenState({ id: LINK, merchantId: "mer_a", deactivatedAt: null, createdAt: 1_800_000_000_000 });
  });

  it("cannot be deactivated: link_not_found", () => {
    given().when(deactivate()).thenRejects("link_not_found");
  });
});

describe("a created link", () => {
  it("is not created twice (a new command id): link_exists", () => {
    given(created).when(create("c-again")).thenRejects("link_exists");
  });

  it("takes a retried creation (same command id) as done, with nothing new", () => {
    given(created).when(create()).thenNothing();
  });

  it("is deactivated by its merchant", () => {
    given(created).when(deactivate()).then(deactivated).thenState({ deactivatedAt: 1_800_000_000_000 });
  });

  it("is as unknown to another merchant as a link that does not exist", () => {
    given(created).when(deactivate("mer_b")).thenRejects("link_not_found");
  });

  it("deactivated, deactivates again with nothing new", () => {
    given(created, deactivated).when(deactivate("mer_a", "c-off-2")).thenNothing();
  });
});

describe("the decision's reply", () => {
  it("answers the waiting gateway, with the refusal when refused", () => {
    const refused = linkDecider.decide(deactivate("mer_b"), null);
    expect(refused.outbox).toEqual([
      {
        type: "Reply",
        data: { replyTo, rejection: { code: "link_not_found", message: "no such payment link" } },
      },
    ]);
    const accepted = linkDecider.decide(create(), null);
    expect(accepted.outbox).toEqual([{ type: "Reply", data: { replyTo, rejection: null } }]);
  });
});

describe("link codecs", () => {
  it("round-trip every command and event", () => {
    const expiring = { ...TERMS, description: null, expiresAt: 1_900_000_000_000 };
    const commands: LinkCommand[] = [
      create(),
      { ...create(), data: { linkId: LINK, ...expiring }, metadata: { ...meta("c2"), replyTo: null } },
      deactivate(),
    ];
    for (const c of commands) expect(codecs.linkCommand.decode(codecs.linkCommand.encode(c))).toEqual(c);
    for (const e of [created, deactivated, { ...created, data: expiring }])
      expect(codecs.linkEvent.decode(codecs.linkEvent.encode(e))).toEqual(e);
  });

  it("refuse an amount that is not a decimal integer at encode", () => {
    const bad = { ...create(), data: { linkId: LINK, ...TERMS, amount: "1.5" } } as LinkCommand;
    expect(() => codecs.linkCommand.encode(bad)).toThrow(/amount/);
  });
});
