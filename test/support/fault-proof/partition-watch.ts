import { AssignerProtocol, Kafka, logLevel } from "kafkajs";

/**
 * How long partitions go unserved during a rolling restart (issue 29, item 4), from the consumer
 * groups' assignments as the broker reports them: a group's partition is served while the group is
 * Stable and one of its members holds it; from the first look that finds it otherwise (a rebalance
 * under way, a member gone that still held it until its session timeout) until the next look that
 * finds it served, it went unserved. Looks every `everyMs`, so a gap is exact to about that. The
 * groups of one process (a gateway's, `gateway.<id>`; a topic reader's, `reader.<topic>.<uuid>`)
 * are left out: they hold no shared work, and a killed process's stays unserved for good.
 *
 * Chosen over "the partition's last record handled before the stop and first after": that needs a
 * record on every partition at every moment, which a steady payer load does not give, and would
 * count a quiet partition as unserved.
 */
export interface PartitionGap {
  group: string;
  topic: string;
  partition: number;
  ms: number;
}

export interface PartitionWatch {
  /** Stops looking; answers the longest gap of each group (the longest first). */
  stop(): Promise<PartitionGap[]>;
}

export async function watchPartitions(brokers: string[], everyMs = 250): Promise<PartitionWatch> {
  const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING, clientId: "partition-watch" }).admin();
  await admin.connect();
  // When each group's partition was first seen unserved (absent: served at the last look).
  const since = new Map<string, number>();
  // Every group's partitions seen served once: a partition never served is not being rolled.
  const known = new Set<string>();
  const longest = new Map<string, PartitionGap>();
  let running = true;

  const look = async () => {
    const groups = (await admin.listGroups()).groups
      .map((g) => g.groupId)
      .filter((g) => !g.startsWith("gateway.") && !g.startsWith("reader."));
    const now = Date.now();
    for (const group of (await admin.describeGroups(groups)).groups) {
      const held = new Set<string>();
      if (group.state === "Stable")
        for (const m of group.members) {
          const assignment = AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {};
          for (const [topic, partitions] of Object.entries(assignment))
            for (const p of partitions) held.add(`${group.groupId}\u0000${topic}\u0000${p}`);
        }
      for (const key of held) {
        known.add(key);
        const from = since.get(key);
        if (from === undefined) continue;
        since.delete(key);
        const [g, topic, partition] = key.split("\u0000") as [string, string, string];
        const gap = { group: g, topic, partition: Number(partition), ms: now - from };
        if (gap.ms > (longest.get(g)?.ms ?? -1)) longest.set(g, gap);
      }
      for (const key of known)
        if (key.startsWith(`${group.groupId}\u0000`) && !held.has(key) && !since.has(key))
          since.set(key, now);
    }
  };

  const loop = (async () => {
    while (running) {
      // A look that fails (the broker busy) is a look missed, not a gap: the next one decides.
      await look().catch(() => {});
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();

  return {
    async stop() {
      running = false;
      await loop;
      await admin.disconnect();
      // A gap still open at the end counts until now.
      const now = Date.now();
      for (const [key, from] of since) {
        const [g, topic, partition] = key.split("\u0000") as [string, string, string];
        if (now - from > (longest.get(g)?.ms ?? -1))
          longest.set(g, { group: g, topic, partition: Number(partition), ms: now - from });
      }
      return [...longest.values()].sort((a, b) => b.ms - a.ms);
    },
  };
}
