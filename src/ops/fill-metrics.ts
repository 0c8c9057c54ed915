import client from "prom-client";
import type { FillGauges } from "../executor/fast-fill.ts";
import type { Inventory } from "../store/fill-inventory.ts";
import { gaugeFrom, registry } from "./metrics.ts";

/**
 * The fast fill's metrics (docs/SOLANA.md, "What an operator watches"): the relayer's USDC inventory
 * per chain, what is reserved out of it and how many fills hold a reservation (as this executor last
 * read them, at each fill), and the fills by outcome.
 */
export function fillMetrics(): FillGauges {
  const last = new Map<number, Inventory>();
  const per = (pick: (i: Inventory) => number) => () =>
    [...last].map(([chainId, i]) => ({ labels: { chain_id: chainId }, value: pick(i) }));
  gaugeFrom(
    "settlement_fill_inventory_usdc",
    "The relayer's USDC balance (base units) on an EVM chain, its fast-fill inventory",
    ["chain_id"],
    per((i) => Number(i.balance)),
  );
  gaugeFrom(
    "settlement_fill_reserved_usdc",
    "USDC base units reserved for fast fills not yet paid, by chain",
    ["chain_id"],
    per((i) => Number(i.reserved)),
  );
  gaugeFrom(
    "settlement_fill_reservations_open",
    "Fast fills holding a reservation (reserved, not yet paid or released), by chain",
    ["chain_id"],
    per((i) => i.open),
  );
  gaugeFrom(
    "settlement_fill_free_usdc",
    "USDC base units a new fast fill can still reserve (balance less reserved less the floor), by chain",
    ["chain_id"],
    per((i) => Math.max(0, Number(i.balance - i.reserved - i.floor))),
  );
  // A role started again in the same process (tests) replaces its counter rather than failing.
  registry.removeSingleMetric("settlement_fills_total");
  const fills = new client.Counter({
    name: "settlement_fills_total",
    help: "Fast fills by outcome: reserved, short (refused for now: the inventory did not cover it), paid, released (the payout failed for good)",
    labelNames: ["chain_id", "outcome"] as const,
    registers: [registry],
  });
  return {
    inventory: (chainId, i) => last.set(chainId, i),
    fill: (chainId, outcome) => fills.inc({ chain_id: chainId, outcome }),
  };
}
