/**
 * The topic catalogue: every Kafka topic of the service, as data. Topic names and value schemas are a
 * public contract (outside consumers read these topics with schemas/); topics/README.md shows the same
 * table for people, and a unit test keeps the two in step.
 */

export interface TopicSpec {
  name: string;
  partitions: number;
  /** What the record key is, in words. */
  key: string;
  /** Full name of the value's Avro record; its schema is schemas/<simple name>.avsc. */
  valueSchema: string;
  cleanupPolicy: "delete" | "compact";
  /** -1 keeps records forever. */
  retentionMs: number | -1;
  /** Roles (src/cli.ts) that produce to the topic. */
  writers: string[];
  /** Roles that consume it. */
  readers: string[];
  description: string;
}

export const TOPIC = {
  sessionCommands: "session.commands",
  chainTransfers: "chain.transfers",
  executorCommands: "executor.commands",
  executorResults: "executor.results",
  sessionEvents: "session.events",
  sessionState: "session.state",
  webhookEvents: "webhook.events",
  gatewayReplies: "gateway.replies",
  merchantCommands: "merchant.commands",
  merchantEvents: "merchant.events",
  subscriptionCommands: "subscription.commands",
  subscriptionEvents: "subscription.events",
  linkCommands: "link.commands",
  linkEvents: "link.events",
  deadLetter: "deadletter",
} as const;

export type TopicName = (typeof TOPIC)[keyof typeof TOPIC];

/** Keyed by session id with one partition count, so one actor host owns a session on all of them. */
export const CO_PARTITIONED: readonly TopicName[] = [
  TOPIC.sessionCommands,
  TOPIC.chainTransfers,
  TOPIC.executorResults,
  TOPIC.sessionEvents,
];

export const SCHEMA_NAMESPACE = "settlement.v1";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FOREVER = -1;

const schema = (name: string): string => `${SCHEMA_NAMESPACE}.${name}`;

/**
 * Every topic. `sessionPartitions` is fixed once the topics exist: changing it would move sessions
 * between partitions and split a session's history across two owners.
 */
export function topicCatalogue(opts: { sessionPartitions: number }): TopicSpec[] {
  const p = opts.sessionPartitions;
  if (!Number.isInteger(p) || p < 1)
    throw new RangeError(`sessionPartitions must be a positive integer: ${p}`);
  return [
    {
      name: TOPIC.sessionCommands,
      partitions: p,
      key: "session id",
      valueSchema: schema("SessionCommand"),
      cleanupPolicy: "delete",
      // Commands are consumed within seconds; days leave room to investigate and to re-drive a stuck host.
      retentionMs: 7 * DAY,
      writers: ["gateway", "actors"],
      readers: ["actors"],
      description:
        "Commands to session actors: creation from the gateway, expiry timers from the owning host.",
    },
    {
      name: TOPIC.chainTransfers,
      partitions: p,
      key: "session id",
      valueSchema: schema("TransferObserved"),
      cleanupPolicy: "delete",
      // Raw chain observations are kept longer than commands so a deposit dispute can be traced to its block.
      retentionMs: 30 * DAY,
      writers: ["indexer"],
      readers: ["actors"],
      description: "Confirmed transfers into watched burners, and retractions of those a reorg dropped.",
    },
    {
      name: TOPIC.executorCommands,
      partitions: p,
      key: "session id (subscription id for charges)",
      valueSchema: schema("ExecutorCommand"),
      cleanupPolicy: "delete",
      retentionMs: 7 * DAY,
      writers: ["actors"],
      readers: ["executor"],
      description: "On-chain work for the relayer: sweep, refund, refund-all, subscription charge.",
    },
    {
      name: TOPIC.executorResults,
      partitions: p,
      key: "session id",
      valueSchema: schema("ExecutorResult"),
      cleanupPolicy: "delete",
      retentionMs: 7 * DAY,
      writers: ["executor"],
      readers: ["actors"],
      description: "What became of each executor command: submitted, confirmed or failed.",
    },
    {
      name: TOPIC.sessionEvents,
      partitions: p,
      key: "session id",
      valueSchema: schema("SessionEvent"),
      // The journal is the source of truth: never compacted (every event counts), never expired.
      cleanupPolicy: "delete",
      retentionMs: FOREVER,
      writers: ["actors"],
      readers: ["actors", "projector", "replay"],
      description: "The session journal: every state change of every session, in order.",
    },
    {
      name: TOPIC.sessionState,
      partitions: p,
      key: "session id",
      valueSchema: schema("SessionState"),
      // Only the latest state of a session matters; compaction keeps exactly that.
      cleanupPolicy: "compact",
      retentionMs: FOREVER,
      writers: ["actors"],
      readers: ["gateway"],
      description: "The interface's Session object after each change; feeds live updates (SSE).",
    },
    {
      name: TOPIC.webhookEvents,
      partitions: p,
      key: "merchant id",
      valueSchema: schema("WebhookEvent"),
      cleanupPolicy: "delete",
      // The delivery queue: the retry schedule ends within a minute, days cover a stopped worker.
      retentionMs: 7 * DAY,
      writers: ["actors"],
      readers: ["webhooks"],
      description: "Webhooks to deliver to merchants, each with its idempotency key.",
    },
    {
      name: TOPIC.gatewayReplies,
      partitions: p,
      key: "gateway instance id",
      valueSchema: schema("GatewayReply"),
      cleanupPolicy: "delete",
      // A gateway waits seconds for a reply; older replies are useless.
      retentionMs: 6 * HOUR,
      writers: ["actors"],
      readers: ["gateway"],
      description: "The owning actor's answer to a command a gateway waits on.",
    },
    {
      name: TOPIC.merchantCommands,
      partitions: p,
      key: "merchant id",
      valueSchema: schema("MerchantCommand"),
      cleanupPolicy: "delete",
      retentionMs: 7 * DAY,
      writers: ["gateway"],
      readers: ["actors"],
      description: "Commands to merchant actors: webhook endpoint, destinations, links, subscriptions.",
    },
    {
      name: TOPIC.merchantEvents,
      partitions: p,
      key: "merchant id",
      valueSchema: schema("MerchantEvent"),
      cleanupPolicy: "delete",
      retentionMs: FOREVER,
      writers: ["actors"],
      readers: ["actors", "projector", "replay"],
      description: "The merchant journal: every configuration change of every merchant, in order.",
    },
    {
      name: TOPIC.subscriptionCommands,
      partitions: p,
      key: "subscription id",
      valueSchema: schema("SubscriptionCommand"),
      cleanupPolicy: "delete",
      retentionMs: 7 * DAY,
      writers: ["gateway", "actors", "executor", "indexer"],
      readers: ["actors"],
      description:
        "Commands to subscription actors: registration and cancels, charge timers, charge results, mirrored on-chain cancels.",
    },
    {
      name: TOPIC.subscriptionEvents,
      partitions: p,
      key: "subscription id",
      valueSchema: schema("SubscriptionEvent"),
      cleanupPolicy: "delete",
      retentionMs: FOREVER,
      writers: ["actors"],
      readers: ["actors", "projector"],
      description: "The subscription journal: every change of every subscription, in order.",
    },
    {
      name: TOPIC.linkCommands,
      partitions: p,
      key: "payment link id",
      valueSchema: schema("LinkCommand"),
      cleanupPolicy: "delete",
      retentionMs: 7 * DAY,
      writers: ["gateway"],
      readers: ["actors"],
      description: "Commands to payment link actors: create and deactivate.",
    },
    {
      name: TOPIC.linkEvents,
      partitions: p,
      key: "payment link id",
      valueSchema: schema("LinkEvent"),
      cleanupPolicy: "delete",
      retentionMs: FOREVER,
      writers: ["actors"],
      readers: ["actors", "projector"],
      description: "The payment link journal: every change of every link, in order.",
    },
    {
      name: TOPIC.deadLetter,
      // One partition: a handful of records an operator lists and re-drives, in the order parked.
      partitions: 1,
      key: "the parked record's key",
      valueSchema: schema("DeadLetter"),
      cleanupPolicy: "delete",
      // A parked record waits for a person (a fix, then a re-drive): kept until someone deals with it.
      retentionMs: FOREVER,
      writers: ["actors", "executor", "webhooks", "cli"],
      readers: ["cli"],
      description:
        "Input records parked after a terminal error (with the error and where they came from), and re-drive notes.",
    },
  ];
}

/** The schema file of a value schema full name, relative to the repository root. */
export const schemaFile = (valueSchema: string): string =>
  `schemas/${valueSchema.slice(valueSchema.lastIndexOf(".") + 1)}.avsc`;
