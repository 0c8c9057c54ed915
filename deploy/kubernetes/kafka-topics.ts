import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse, stringify } from "yaml";
import { type TopicSpec, topicCatalogue } from "../../topics/catalogue.ts";

/**
 * Strimzi KafkaTopic resources generated from topics/catalogue.ts, so the cluster's topics are the
 * catalogue's (names, partitions, cleanup, retention) and nothing is written twice by hand. Run
 * directly to write base/kafka-topics.yaml again; test/unit/kubernetes-manifests.unit.test.ts fails
 * when the checked-in file and this output disagree.
 */

export const BASE_DIR = fileURLToPath(new URL("./base/", import.meta.url));
export const TOPICS_FILE = `${BASE_DIR}kafka-topics.yaml`;
/** The Kafka resource's name in base/kafka.yaml: the topic operator takes topics labelled with it. */
export const KAFKA_CLUSTER = "settlement";

/** Replicas in the base; the local overlay sets 1 (one broker). Two in sync: a write survives one loss. */
const REPLICAS = 3;
const MIN_IN_SYNC = 2;

/** A Kubernetes name for a topic: its dots become dashes (the topic's own name is spec.topicName). */
export const resourceName = (topic: string): string => `topic-${topic.replaceAll(".", "-")}`;

export function kafkaTopic(spec: TopicSpec) {
  return {
    apiVersion: "kafka.strimzi.io/v1",
    kind: "KafkaTopic",
    metadata: {
      name: resourceName(spec.name),
      labels: { "strimzi.io/cluster": KAFKA_CLUSTER, "app.kubernetes.io/component": "platform" },
    },
    spec: {
      topicName: spec.name,
      partitions: spec.partitions,
      replicas: REPLICAS,
      config: {
        "cleanup.policy": spec.cleanupPolicy,
        "retention.ms": spec.retentionMs,
        "min.insync.replicas": MIN_IN_SYNC,
      },
    },
  };
}

/** The file's text: one document per topic of the catalogue, each under its description. */
export function kafkaTopicsYaml(sessionPartitions: number): string {
  const docs = topicCatalogue({ sessionPartitions }).map(
    (t) => `# ${t.description}\n${stringify(kafkaTopic(t), { lineWidth: 0 })}`,
  );
  return `# Generated from topics/catalogue.ts by deploy/kubernetes/kafka-topics.ts; do not edit. Partitions:
# SESSION_PARTITIONS of settings.yaml (${sessionPartitions}). Write it again with
# \`npx tsx deploy/kubernetes/kafka-topics.ts\`.
${docs.join("---\n")}`;
}

/** SESSION_PARTITIONS as the ConfigMap in base/settings.yaml sets it: the one number both use. */
export async function sessionPartitionsSetting(): Promise<number> {
  const settings = parse(await readFile(`${BASE_DIR}settings.yaml`, "utf8")) as {
    data?: Record<string, string>;
  };
  const value = Number(settings.data?.SESSION_PARTITIONS);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`base/settings.yaml: SESSION_PARTITIONS must be a positive integer, not ${value}`);
  return value;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await writeFile(TOPICS_FILE, kafkaTopicsYaml(await sessionPartitionsSetting()));
  process.stdout.write(`written ${TOPICS_FILE}\n`);
}
