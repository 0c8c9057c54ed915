import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STACK_ACTIONS } from "../../deploy/local/stack.ts";
import { USAGE } from "../../src/app/cli.ts";
import { parseConfig, SETTING_NAMES } from "../../src/config.ts";
import { OPERATOR_USAGE } from "../../src/operator/cli.ts";
import {
  allTables,
  commandKeys,
  type DocTable,
  docFiles,
  literalDefaults,
  readDoc,
  routesIn,
  SETTING_NAME,
  tablesOf,
  usageCommands,
} from "../support/doc-tables.ts";
import { everyRouteGateway } from "../support/every-route-gateway.ts";

/**
 * The docs' route, setting and command tables, wherever they live, held to the code as the error
 * table is (gateway-errors.unit.test.ts): a row naming something the code lacks, or a thing of the
 * code no table names, fails here. Routes are the gateway's with every area on (its OpenAPI document,
 * and fastify's routes for the few it hides), settings the config schema's, commands the CLIs' usage.
 */

const tables = allTables();
const column = (t: DocTable, ...names: string[]) =>
  t.header.findIndex((h) => names.some((n) => h === n || h.startsWith(`${n} `)));

// --- Routes -------------------------------------------------------------------------------------

const routeTables = tables.filter((t) => column(t, "method", "path", "route") >= 0);
const documentedRoutes = routeTables.flatMap((t) =>
  t.rows.flatMap((row) => {
    const cols = [column(t, "method"), column(t, "path"), column(t, "route")].filter((i) => i >= 0);
    return routesIn(cols.map((i) => row[i] ?? "").join(" ")).map((route) => ({ route, file: t.file }));
  }),
);

describe("the docs' route tables", () => {
  let app: FastifyInstance;
  let openApi: string[];
  beforeAll(async () => {
    app = await everyRouteGateway();
    const doc = (await app.inject({ url: "/openapi.json" })).json() as { paths: Record<string, object> };
    openApi = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  it("name only routes the gateway has", () => {
    const unknown = documentedRoutes.filter(({ route }) => {
      const [method, url] = route.split(" ") as [string, string];
      return !app.hasRoute({ method, url: url.replace(/\{([a-z_]+)\}/g, ":$1") });
    });
    expect(unknown).toEqual([]);
  });

  it("name every route of the OpenAPI document", () => {
    const named = new Set(documentedRoutes.map((d) => d.route));
    expect(openApi.length).toBeGreaterThan(50);
    expect(openApi.filter((route) => !named.has(route))).toEqual([]);
  });

  it("would notice a route in any spelling the tables use", () => {
    expect(routesIn("POST `/v1/keys/:key_id/revoke`")).toEqual(["POST /v1/keys/{key_id}/revoke"]);
    expect(routesIn("`POST /sessions/solana` with x")).toEqual(["POST /sessions/solana"]);
    expect(routesIn("POST `/sessions/:id/commit`, GET `/sessions/:id/quote`")).toEqual([
      "POST /sessions/{id}/commit",
      "GET /sessions/{id}/quote",
    ]);
    expect(routesIn("`GET /v1/operator/dead-letters[?topic=T]`")).toEqual(["GET /v1/operator/dead-letters"]);
  });
});

// --- Settings -----------------------------------------------------------------------------------

const settingTables = tables.filter((t) => column(t, "variable", "setting", "key") === 0);
const settingRows = settingTables.flatMap((t) =>
  t.rows.map((row) => ({
    file: t.file,
    names: [...(row[0] ?? "").matchAll(SETTING_NAME)].map((m) => m[1] as string),
    defaults: row[1] ?? "",
  })),
);
const documentedSettings = settingRows.flatMap((r) => r.names.map((name) => ({ name, file: r.file })));
const known = new Set<string>(SETTING_NAMES);
const matches = (documented: string, name: string) =>
  documented.endsWith("_*") ? name.startsWith(documented.slice(0, -1)) : documented === name;

describe("the docs' settings tables", () => {
  it("name only settings the config schema has", () => {
    const unknown = documentedSettings.filter(({ name }) => ![...known].some((k) => matches(name, k)));
    expect(unknown).toEqual([]);
  });

  it("name every setting of the schema in docs/CONFIGURATION.md, itself or through its family's row", () => {
    const table = documentedSettings.filter((d) => d.file === "docs/CONFIGURATION.md").map((d) => d.name);
    expect(SETTING_NAMES.filter((name) => !table.some((d) => matches(d, name)))).toEqual([]);
  });

  it("name every setting of a family row (`EXECUTOR_*`) in a table of its own", () => {
    const exact = new Set(documentedSettings.map((d) => d.name));
    const families = documentedSettings.filter((d) => d.name.endsWith("_*")).map((d) => d.name);
    const unnamed = SETTING_NAMES.filter((n) => families.some((f) => matches(f, n)) && !exact.has(n));
    expect(unnamed).toEqual([]);
  });

  it("give the schema's default wherever a row gives a literal one", () => {
    const defaults = parseConfig({}) as unknown as Record<string, unknown>;
    const wrong = settingRows.flatMap(({ file, names, defaults: cell }) => {
      const literal = names.some((n) => n.endsWith("_*")) ? null : literalDefaults(cell, names.length);
      return (literal ?? []).flatMap((value, i) => {
        const name = names[i] as string;
        const actual = defaults[name];
        return actual !== undefined && String(actual) !== value
          ? [`${file} ${name}: ${value}, schema ${actual}`]
          : [];
      });
    });
    expect(wrong).toEqual([]);
  });

  it("would notice a wrong or missing default, and read a family row", () => {
    expect(literalDefaults("`8080`, `127.0.0.1`", 2)).toEqual(["8080", "127.0.0.1"]);
    expect(literalDefaults("1800000 (30 min)", 1)).toEqual(["1800000"]);
    expect(literalDefaults("500 / 10", 2)).toEqual(["500", "10"]);
    expect(literalDefaults("local stack", 1)).toBeNull();
    const [row] = tablesOf(
      "x.md",
      "| variable | default |\n| --- | --- |\n| `EXECUTOR_*`, `CHAINS[].relayer` | x |\n",
    );
    expect([...(row?.rows[0]?.[0] ?? "").matchAll(SETTING_NAME)].map((m) => m[1])).toEqual([
      "EXECUTOR_*",
      "CHAINS",
    ]);
  });
});

// --- Commands -----------------------------------------------------------------------------------

/** The backticked commands of a command table's `command` column (rows of `npm run ...` point elsewhere). */
function tableCommands(file: string): string[] {
  return tablesOf(file, readDoc(file))
    .filter((t) => column(t, "command") >= 0)
    .flatMap((t) => t.rows.map((row) => row[column(t, "command")] ?? ""))
    .flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string))
    .filter((c) => !c.startsWith("npm "))
    .flatMap(commandKeys);
}

const sorted = (xs: string[]) => [...new Set(xs)].sort();

describe("the docs' command tables", () => {
  it("docs/CLI.md names exactly the commands of the service's CLI and of the local stack's", () => {
    const code = [...usageCommands(USAGE), ...STACK_ACTIONS.map((a) => `stack ${a}`)];
    expect(sorted(tableCommands("docs/CLI.md"))).toEqual(sorted(code));
  });

  it("docs/OPERATIONS.md names exactly the operator CLI's tools", () => {
    expect(sorted(tableCommands("docs/OPERATIONS.md"))).toEqual(sorted(usageCommands(OPERATOR_USAGE)));
  });

  it("would notice a missing flag or a subcommand spelled together", () => {
    expect(commandKeys("merchant roll --id M [--type secret|publishable]")).toEqual([
      "merchant roll --id --type",
    ]);
    expect(commandKeys("stack start|stop|status")).toEqual(["stack start", "stack stop", "stack status"]);
    expect(commandKeys("journal <session-id>")).toEqual(["journal"]);
    expect(usageCommands("  topics      create\n  a | b\n                        more")).toEqual([
      "topics",
      "a",
      "b",
    ]);
  });
});

describe("the README's index of docs/", () => {
  it("names every page of docs/, and only pages that exist", () => {
    const index = tablesOf("README.md", readDoc("README.md")).find((t) => t.header[0] === "page");
    const named = (index?.rows ?? []).flatMap((row) =>
      [...(row[0] ?? "").matchAll(/docs\/[A-Z-]+\.md/g)].map((m) => m[0]),
    );
    const pages = docFiles().filter((f) => f.startsWith("docs/"));
    expect(sorted(named)).toEqual(sorted(pages));
  });
});
