import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { USAGE } from "../../src/app/cli.ts";
import { ROLES } from "../../src/app/roles.ts";
import { parseConfig } from "../../src/config.ts";

const ROOT = new URL("../../", import.meta.url);
const COMPOSE = new URL("deploy/compose/", ROOT);
const read = (url: URL) => readFileSync(url, "utf8");

interface Service {
  image: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  env_file?: Array<{ path: string; required: boolean }>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
}
// `merge`: the roles share their settings through a YAML merge key (<<: *role).
const file = parse(read(new URL("compose.yaml", COMPOSE)), { merge: true }) as {
  services: Record<string, Service>;
};
const services = file.services;
const service = (name: string): Service => {
  const s = services[name];
  if (!s) throw new Error(`no service ${name}`);
  return s;
};
/** KEY=value lines of an env file (comments and blank lines skipped), as compose reads them. */
const envFile = (text: string) =>
  Object.fromEntries(
    text
      .split("\n")
      .filter((l) => l.trim() !== "" && !l.startsWith("#"))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
const exampleSecrets = envFile(read(new URL("secrets.env.example", COMPOSE)));

describe("deploy/compose", () => {
  it("runs every role, a one-shot migrate, and Kafka and Cassandra from their official images", () => {
    expect(Object.keys(services).sort()).toEqual(["cassandra", "kafka", "migrate", ...ROLES].sort());
    expect(service("kafka").image).toMatch(/^apache\/kafka:4\.\d+\.\d+$/);
    expect(service("cassandra").image).toMatch(/^cassandra:5\.0\.\d+$/);
    for (const role of ROLES) expect(service(role).command).toEqual([role]);
    expect(service("migrate").command).toEqual(["migrate"]);
    expect(USAGE).toMatch(/^\s+migrate\s/m);
    expect(service("indexer").deploy?.replicas ?? 1).toBe(1);
  });

  it("builds the roles' image from deploy/Dockerfile, whose every COPY source exists", () => {
    for (const name of ["migrate", ...ROLES]) {
      expect(service(name).image).toBe("deposit-settlement:dev");
      expect(service(name).build).toEqual({ context: "../..", dockerfile: "deploy/Dockerfile" });
    }
    const dockerfile = read(new URL("deploy/Dockerfile", ROOT));
    const sources = [...dockerfile.matchAll(/^COPY (.+) \S+$/gm)].flatMap((m) => (m[1] ?? "").split(" "));
    expect(sources).toEqual(
      expect.arrayContaining(["package.json", "package-lock.json", "src", "schemas", "topics"]),
    );
    for (const source of sources) expect(existsSync(new URL(source, ROOT)), source).toBe(true);
    expect(dockerfile).toContain('ENTRYPOINT ["node", "--import", "tsx", "src/cli.ts"]');
  });

  it("gives every role settings the service's config accepts, pointing at the compose servers, secrets only from secrets.env", () => {
    expect(Object.keys(exampleSecrets).sort()).toEqual(["CHAINS", "OPERATOR_SECRET"]);
    for (const name of ["migrate", ...ROLES]) {
      const s = service(name);
      expect(s.env_file).toEqual([{ path: "secrets.env", required: true }]);
      const env = s.environment ?? {};
      for (const secret of ["CHAINS", "EVM_CHAINS", "OPERATOR_SECRET"])
        expect(Object.keys(env)).not.toContain(secret);
      // ${VAR:-default} as compose resolves it with VAR unset.
      const resolved = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [k, v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1")]),
      );
      const config = parseConfig({ ...resolved, OPERATOR_SECRET: "x".repeat(32), CHAINS: "[]" });
      expect(config.KAFKA_BROKERS).toEqual(["kafka:9092"]);
      expect(config.CASSANDRA_CONTACT_POINTS).toEqual(["cassandra:9042"]);
      expect(config.HOST).toBe("0.0.0.0");
    }
    expect(service("kafka").environment?.KAFKA_ADVERTISED_LISTENERS).toBe("PLAINTEXT://kafka:9092");
  });

  it("starts migrate once both servers are healthy, and every role once migrate has finished", () => {
    for (const server of ["kafka", "cassandra"])
      expect(service(server).healthcheck?.test.length).toBeGreaterThan(1);
    expect(service("migrate").depends_on).toEqual({
      kafka: { condition: "service_healthy" },
      cassandra: { condition: "service_healthy" },
    });
    for (const role of ROLES)
      expect(service(role).depends_on).toEqual({ migrate: { condition: "service_completed_successfully" } });
  });

  const plugin = spawnSync("docker", ["compose", "version"], { encoding: "utf8" });
  const hasCompose = plugin.status === 0;
  if (!hasCompose)
    console.warn("docker compose config skipped: no compose plugin for the docker client here");
  it.skipIf(!hasCompose)("is a file `docker compose config` accepts", () => {
    // On a copy with secrets.env made from the example: the real one is never checked in.
    const dir = mkdtempSync(join(tmpdir(), "compose-"));
    try {
      cpSync(new URL("compose.yaml", COMPOSE), join(dir, "compose.yaml"));
      cpSync(new URL("secrets.env.example", COMPOSE), join(dir, "secrets.env"));
      const run = spawnSync("docker", ["compose", "-f", join(dir, "compose.yaml"), "config", "--quiet"], {
        encoding: "utf8",
      });
      expect(run.status, run.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
