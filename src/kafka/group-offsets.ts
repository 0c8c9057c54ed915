import { type KafkaClient, kafkajs } from "./client.ts";

/** Whether a consumer group has members now (a group that never ran, or whose members left, has none). */
export async function groupHasMembers(kafka: KafkaClient, groupId: string): Promise<boolean> {
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return (groups[0]?.members.length ?? 0) > 0;
  } finally {
    await admin.disconnect();
  }
}

/**
 * Sets a consumer group's committed offsets on a topic, so its first member starts there. The broker
 * refuses it while the group has members (a running consumer owns its offsets).
 */
export async function setGroupOffsets(
  kafka: KafkaClient,
  groupId: string,
  topic: string,
  offsets: Map<number, bigint>,
): Promise<void> {
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  try {
    await admin.setOffsets({
      groupId,
      topic,
      partitions: [...offsets].map(([partition, offset]) => ({ partition, offset: offset.toString() })),
    });
  } finally {
    await admin.disconnect();
  }
}
