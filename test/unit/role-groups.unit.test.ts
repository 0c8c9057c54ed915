import { describe, expect, it } from "vitest";
import { roleGroups } from "../../src/app/role-groups.ts";
import { parseConfig } from "../../src/config.ts";
import { singleObjectCodecs } from "../../src/kafka/codecs.ts";
import { INITIAL_READ_MODELS } from "../../src/projections/read-model-control.ts";

const codecs = singleObjectCodecs();
// A rebuild under way: `sessions` served, `sessions_v2` being built beside it.
const models = { ...INITIAL_READ_MODELS, following: ["sessions_v2"] };
const projectors = (mode: string) =>
  roleGroups({ config: parseConfig({ CHAINS: "[]", MERCHANT_MODE: mode }), codecs }, models).filter(
    (g) => g.role === "projector",
  );

describe("role groups (what the lag tool measures)", () => {
  it("lists the session projection's group of every table built or served, on session.events", () => {
    expect(projectors("off")).toEqual([
      { role: "projector", group: "projector", topics: ["session.events"] },
      { role: "projector", group: "projector.sessions_v2", topics: ["session.events"] },
    ]);
  });

  it("adds each merchant-mode entity's projector group over its own journal when merchant mode is on", () => {
    const groups = projectors("development").slice(2);
    expect(groups).toEqual([
      { role: "projector", group: "merchant-projector", topics: ["merchant.events"] },
      { role: "projector", group: "subscription-projector", topics: ["subscription.events"] },
      { role: "projector", group: "link-projector", topics: ["link.events"] },
    ]);
  });
});
