import { readdirSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { kafkaTopicsYaml, sessionPartitionsSetting } from "../../deploy/kubernetes/kafka-topics.ts";
import { ROLES } from "../../src/app/roles.ts";
import { parseConfig } from "../../src/config.ts";
import { ACTORS_GROUP } from "../../src/entities/session.ts";
import { EXECUTOR_GROUP } from "../../src/executor/executor.ts";
import { PROJECTOR_GROUP } from "../../src/projections/projector.ts";
import { WEBHOOKS_GROUP } from "../../src/webhooks/worker.ts";
import { knownKinds, type Resource, validateResource } from "../support/kubernetes-schemas.ts";
import { buildOverlay, kustomizeAvailable, parseResources } from "../support/kustomize.ts";

const K8S = new URL("../../deploy/kubernetes/", import.meta.url);
const BASE = new URL("base/", K8S);
const read = (url: URL) => readFileSync(url, "utf8");
const kustomization = parse(read(new URL("kustomization.yaml", BASE))) as { resources: string[] };
const base: Resource[] = kustomization.resources.flatMap((f) => parseResources(read(new URL(f, BASE)), f));
const all = (docs: Resource[], kind: string) => docs.filter((d) => d.kind === kind);
const named = (docs: Resource[], kind: string, name: string): Resource => {
  const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
/** The settings that must only ever be in a Secret (src/config.ts). */
const SECRET_SETTINGS = ["CHAINS", "EVM_CHAINS", "OPERATOR_SECRET"];
const A_SECRET = { OPERATOR_SECRET: "x".repeat(32), CHAINS: "[]" };

interface PodSpec {
  containers: Array<{
    args?: string[];
    envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  }>;
}
const podOf = (d: Resource) => (d.spec as { template: { spec: PodSpec } }).template.spec;

describe("deploy/kubernetes base", () => {
  it("lists every manifest beside its kustomization, and each document is a named resource", () => {
    const files = readdirSync(BASE).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    for (const doc of base)
      expect(doc.metadata.name, `${doc.kind}`).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
  });

  it("validates every resource against its schema: core, KEDA and Prometheus models, Strimzi and K8ssandra CRDs", () => {
    expect(knownKinds()).toEqual(
      expect.arrayContaining([
        "kafka.strimzi.io/v1/Kafka",
        "kafka.strimzi.io/v1/KafkaNodePool",
        "kafka.strimzi.io/v1/KafkaTopic",
        "k8ssandra.io/v1alpha1/K8ssandraCluster",
      ]),
    );
    for (const doc of base)
      expect(() => validateResource(doc), `${doc.kind} ${doc.metadata.name}`).not.toThrow();
    const kinds = new Set(base.map((d) => d.kind));
    for (const kind of [
      "Deployment",
      "Service",
      "ConfigMap",
      "PodDisruptionBudget",
      "ScaledObject",
      "PrometheusRule",
    ])
      expect(kinds).toContain(kind);
    for (const kind of ["Kafka", "KafkaNodePool", "KafkaTopic", "K8ssandraCluster"])
      expect(kinds).toContain(kind);
  });

  it("refuses what is wrong: a misspelt or mistyped field, a missing required one, an unknown kind", () => {
    const topic = structuredClone(named(base, "KafkaTopic", "topic-session-events"));
    (topic.spec as Record<string, unknown>).partition = 3; // "partitions", misspelt
    expect(() => validateResource(topic)).toThrow(/partition/);
    const cluster = structuredClone(named(base, "K8ssandraCluster", "settlement"));
    const dc = (cluster.spec as { cassandra: { datacenters: Array<Record<string, unknown>> } }).cassandra
      .datacenters;
    delete dc[0]?.size;
    expect(() => validateResource(cluster)).toThrow(/size/);
    const pool = structuredClone(named(base, "KafkaNodePool", "dual-role"));
    (pool.spec as Record<string, unknown>).replicas = "three";
    expect(() => validateResource(pool)).toThrow(/integer/);
    const deployment = structuredClone(named(base, "Deployment", "settlement-gateway"));
    (podOf(deployment).containers[0] as Record<string, unknown>).image = 7;
    expect(() => validateResource(deployment)).toThrow(/image/);
    const scaled = structuredClone(named(base, "ScaledObject", "settlement-actors"));
    delete (scaled.spec as Record<string, unknown>).scaleTargetRef;
    expect(() => validateResource(scaled)).toThrow(/scaleTargetRef/);
    expect(() =>
      validateResource({ apiVersion: "example.com/v1", kind: "Thing", metadata: { name: "x" } }),
    ).toThrow(/no schema/);
  });

  it("holds kafka-topics.yaml equal to what the generator makes of topics/catalogue.ts", async () => {
    const partitions = await sessionPartitionsSetting();
    expect(read(new URL("kafka-topics.yaml", BASE))).toBe(kafkaTopicsYaml(partitions));
    const sessionEvents = named(base, "KafkaTopic", "topic-session-events").spec;
    expect(sessionEvents).toMatchObject({
      topicName: "session.events",
      partitions,
      config: { "retention.ms": -1 },
    });
    expect(all(base, "KafkaTopic")).toHaveLength(15);
  });

  it("runs one Deployment per role, with that role's argument, the settings and the Secret", () => {
    for (const role of ROLES) {
      const pod = podOf(named(base, "Deployment", `settlement-${role}`));
      expect(pod.containers[0]?.args).toEqual([role]);
      expect(pod.containers[0]?.envFrom).toEqual([
        { configMapRef: { name: "settlement-settings" } },
        { secretRef: { name: "settlement-secrets" } },
      ]);
    }
    expect(all(base, "Deployment")).toHaveLength(ROLES.length);
    const probe = podOf(named(base, "Deployment", "settlement-gateway")).containers[0] as {
      readinessProbe: { httpGet: { path: string } };
    };
    expect(probe.readinessProbe.httpGet.path).toBe("/ready");
    expect(named(base, "Service", "settlement-gateway").spec).toMatchObject({
      ports: [{ targetPort: "http" }],
    });
  });

  it("scrapes every role on its metrics port (METRICS_PORT), never on the gateway's API port", () => {
    const settings = named(base, "ConfigMap", "settlement-settings").data ?? {};
    expect(settings.METRICS_PORT).not.toBe(settings.PORT);
    for (const role of ROLES) {
      const container = podOf(named(base, "Deployment", `settlement-${role}`)).containers[0] as {
        ports?: Array<{ name: string; containerPort: number }>;
      };
      expect(container.ports).toContainEqual({
        name: "metrics",
        containerPort: Number(settings.METRICS_PORT),
      });
    }
    const monitor = named(base, "PodMonitor", "settlement").spec as {
      podMetricsEndpoints: Array<{ port: string; path: string }>;
    };
    expect(monitor.podMetricsEndpoints.map((e) => [e.port, e.path])).toEqual([["metrics", "/metrics"]]);
  });

  it("probes every role on /ready and /live of its metrics port, and rolls it one pod at a time", () => {
    for (const role of ROLES) {
      const deployment = named(base, "Deployment", `settlement-${role}`);
      const container = podOf(deployment).containers[0] as Record<string, { httpGet: object } | undefined>;
      expect(container.readinessProbe?.httpGet, role).toEqual({ path: "/ready", port: "metrics" });
      expect(container.livenessProbe?.httpGet, role).toEqual({ path: "/live", port: "metrics" });
      expect(container.startupProbe?.httpGet, role).toEqual({ path: "/ready", port: "metrics" });
      const strategy = (deployment.spec as { strategy: { type: string; rollingUpdate?: object } }).strategy;
      // The indexer alone is replaced stopped-then-started: two would both publish every transfer.
      expect(strategy, role).toEqual(
        role === "indexer"
          ? { type: "Recreate" }
          : { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      );
    }
  });

  it("gives each pod's stop (preStop sleep, the gateway's drain, SHUTDOWN_TIMEOUT_MS) time before any SIGKILL", () => {
    const settings = named(base, "ConfigMap", "settlement-settings").data ?? {};
    const config = parseConfig({ ...settings, ...A_SECRET });
    for (const role of ROLES) {
      const pod = podOf(named(base, "Deployment", `settlement-${role}`)) as PodSpec & {
        terminationGracePeriodSeconds: number;
      };
      const preStop = (pod.containers[0] as { lifecycle?: { preStop?: { sleep?: { seconds: number } } } })
        .lifecycle?.preStop?.sleep?.seconds;
      // Only the gateway has a balancer in front of it to drain (src/app/shutdown.ts, drainFor).
      expect(preStop === undefined, role).toBe(role !== "gateway");
      const drainMs = role === "gateway" ? config.SHUTDOWN_DRAIN_MS : 0;
      const stopMs = (preStop ?? 0) * 1000 + drainMs + config.SHUTDOWN_TIMEOUT_MS;
      expect(pod.terminationGracePeriodSeconds * 1000, role).toBeGreaterThan(stopMs);
    }
  });

  it("asks for group sessions the brokers allow (the config's default), so every member's join is taken", () => {
    const settings = named(base, "ConfigMap", "settlement-settings").data ?? {};
    const sessionMs = parseConfig({ ...settings, ...A_SECRET }).KAFKA_SESSION_TIMEOUT_MS;
    expect(sessionMs).toBe(parseConfig(A_SECRET).KAFKA_SESSION_TIMEOUT_MS);
    const brokers = (
      named(base, "Kafka", "settlement").spec as { kafka: { config: Record<string, unknown> } }
    ).kafka.config;
    expect(Number(brokers["group.min.session.timeout.ms"])).toBeLessThanOrEqual(sessionMs);
  });

  it("has one disruption budget per role, one pod at a time, which never blocks a drain", () => {
    const budgets = all(base, "PodDisruptionBudget").map((b) => b.spec as Record<string, unknown>);
    expect(
      budgets
        .map(
          (b) =>
            (b.selector as { matchLabels: Record<string, string> }).matchLabels[
              "app.kubernetes.io/component"
            ],
        )
        .sort(),
    ).toEqual([...ROLES].sort());
    for (const b of budgets) {
      expect(b.maxUnavailable).toBe(1);
      expect(b.minAvailable).toBeUndefined();
    }
  });

  it("scales each consumer role on the consumer group the code uses", () => {
    const groups: Record<string, string> = {
      "settlement-actors": ACTORS_GROUP,
      "settlement-projector": PROJECTOR_GROUP,
      "settlement-executor": EXECUTOR_GROUP,
      "settlement-webhooks": WEBHOOKS_GROUP,
    };
    const scaled = all(base, "ScaledObject");
    expect(scaled.map((s) => s.metadata.name).sort()).toEqual(Object.keys(groups).sort());
    const partitions = Number(named(base, "ConfigMap", "settlement-settings").data?.SESSION_PARTITIONS);
    for (const s of scaled) {
      const spec = s.spec as {
        scaleTargetRef: { name: string };
        maxReplicaCount: number;
        triggers: Array<{ type: string; metadata: Record<string, string> }>;
      };
      expect(spec.scaleTargetRef.name).toBe(s.metadata.name);
      expect(spec.triggers).toEqual([
        expect.objectContaining({
          type: "kafka",
          metadata: expect.objectContaining({ consumerGroup: groups[s.metadata.name] }),
        }),
      ]);
      // Members past the partition count would get no partition.
      expect(spec.maxReplicaCount).toBeLessThanOrEqual(partitions);
    }
  });

  it("keeps secrets out of the settings, which the service's own config schema accepts", () => {
    const settings = named(base, "ConfigMap", "settlement-settings").data ?? {};
    for (const key of SECRET_SETTINGS) expect(Object.keys(settings)).not.toContain(key);
    expect(() => parseConfig({ ...settings, ...A_SECRET })).not.toThrow();
    expect(all(base, "Secret")).toEqual([]);
  });

  it("alerts only on settlement_* series the code registers", () => {
    const registered = new Set<string>();
    const scan = (dir: URL) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) scan(new URL(`${entry.name}/`, dir));
        else if (entry.name.endsWith(".ts"))
          for (const m of read(new URL(entry.name, dir)).matchAll(/"(settlement_[a-z0-9_]+)"/g))
            registered.add(m[1] ?? "");
      }
    };
    scan(new URL("../../src/", import.meta.url));
    const rules = JSON.stringify(named(base, "PrometheusRule", "settlement").spec);
    const used = new Set([...rules.matchAll(/settlement_[a-z0-9_]+/g)].map((m) => m[0]));
    expect(used.size).toBeGreaterThanOrEqual(5);
    for (const name of used) expect(registered, name).toContain(name);
  });
});

const kustomize = kustomizeAvailable();
if (!kustomize.ok) console.warn(`kubectl kustomize tests skipped: ${kustomize.reason}`);

describe.skipIf(!kustomize.ok)("kubectl kustomize of each overlay", () => {
  const built: Record<string, Resource[]> = {};
  beforeAll(() => {
    for (const overlay of ["local", "production"]) built[overlay] = buildOverlay(K8S, overlay);
  });

  it.each(["local", "production"])("builds %s, and every resource it emits is valid", (overlay) => {
    const docs = built[overlay] ?? [];
    expect(all(docs, "Deployment")).toHaveLength(ROLES.length);
    for (const doc of docs)
      expect(() => validateResource(doc), `${doc.kind} ${doc.metadata.name}`).not.toThrow();
    for (const doc of docs) expect(doc.metadata.namespace ?? "settlement").toBe("settlement");
    const settings = named(docs, "ConfigMap", "settlement-settings").data ?? {};
    for (const key of SECRET_SETTINGS) expect(Object.keys(settings)).not.toContain(key);
    expect(() => parseConfig({ ...settings, ...A_SECRET })).not.toThrow();
  });

  it("local: one of everything, and the Secret generated from secrets.env with only the secret settings", () => {
    const docs = built.local ?? [];
    for (const d of all(docs, "Deployment")) expect((d.spec as { replicas: number }).replicas).toBe(1);
    for (const t of all(docs, "KafkaTopic")) expect(t.spec).toMatchObject({ replicas: 1 });
    const [secret] = all(docs, "Secret");
    expect(Object.keys(secret?.data ?? {}).sort()).toEqual(["CHAINS", "OPERATOR_SECRET"]);
    const refs = all(docs, "Deployment").map((d) => podOf(d).containers[0]?.envFrom?.[1]?.secretRef?.name);
    expect(new Set(refs)).toEqual(new Set([secret?.metadata.name]));
  });

  it("production: no Secret in the build (created from the secret store), the image from the registry", () => {
    const docs = built.production ?? [];
    expect(all(docs, "Secret")).toEqual([]);
    for (const d of all(docs, "Deployment"))
      expect((podOf(d).containers[0] as { image: string }).image).toMatch(
        /^registry\.example\.com\/deposit-settlement:/,
      );
    expect(named(docs, "KafkaNodePool", "dual-role").spec).toMatchObject({ replicas: 3 });
  });
});
