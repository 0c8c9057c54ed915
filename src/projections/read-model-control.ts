/**
 * Which sessions read-model tables exist and what each is for, as one small record the projectors
 * and the gateways follow (src/store/read-model-control.ts keeps it in Cassandra, beside the tables):
 *
 * - `active`: the table every gateway reads, and the projectors write;
 * - `following`: tables the projectors also keep current (a rebuilt table waiting for its switch, or
 *   the previous active one, kept for a switch back);
 * - `retired`: tables no longer written, kept until someone drops them; one may be rebuilt.
 *
 * Each table has its own projector consumer group (projectorGroup), so each is a whole projection
 * of the journal on its own: a table starts following from where its replay stopped, and a switch
 * is only a change of what the gateways read. Pure: the transitions below answer the new record or
 * the refusal's code.
 */

import { INITIAL_READ_MODELS, type ReadModels } from "../store/read-model-control.ts";

export { INITIAL_READ_MODELS, type ReadModels };

/** The projector's consumer group for a table: the historical name for `sessions`, its own for any other. */
export const projectorGroup = (table: string): string =>
  table === INITIAL_READ_MODELS.active ? "projector" : `projector.${table}`;

/** The tables the projectors write: the active one first. */
export const projectedTables = (m: ReadModels): string[] => [m.active, ...m.following];

export type ReadModelRefusal = "read_model_exists" | "read_model_not_found" | "read_model_active";

export type Transition = { ok: true; next: ReadModels } | { ok: false; code: ReadModelRefusal };

const without = (list: string[], table: string) => list.filter((t) => t !== table);
const ok = (m: ReadModels, change: Omit<ReadModels, "version">): Transition => ({
  ok: true,
  next: { ...change, version: m.version + 1 },
});

/** A rebuild may target a new table or a retired one, never one that is being written. */
export function canBuild(m: ReadModels, table: string): ReadModelRefusal | null {
  return projectedTables(m).includes(table) ? "read_model_exists" : null;
}

/** A rebuilt table, replayed to some offsets, joins the followers. */
export function follow(m: ReadModels, table: string): Transition {
  const refused = canBuild(m, table);
  if (refused) return { ok: false, code: refused };
  return ok(m, { active: m.active, following: [...m.following, table], retired: without(m.retired, table) });
}

/** The gateways read `table` from now on; the table they read before keeps following, for a switch back. */
export function activate(m: ReadModels, table: string): Transition {
  if (m.active === table) return { ok: true, next: m };
  if (!m.following.includes(table)) return { ok: false, code: "read_model_not_found" };
  return ok(m, { active: table, following: [m.active, ...without(m.following, table)], retired: m.retired });
}

/** A follower stops being written (the table stays until dropped by hand). */
export function retire(m: ReadModels, table: string): Transition {
  if (m.active === table) return { ok: false, code: "read_model_active" };
  if (!m.following.includes(table)) return { ok: false, code: "read_model_not_found" };
  return ok(m, {
    active: m.active,
    following: without(m.following, table),
    retired: [...without(m.retired, table), table],
  });
}
