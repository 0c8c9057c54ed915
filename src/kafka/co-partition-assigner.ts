import { AssignerProtocol, type PartitionAssigner } from "kafkajs";

/**
 * Gives partition N of every subscribed topic to the same member, so the host that owns a session
 * on session.commands also owns it on chain.transfers and executor.results (the topics are
 * co-partitioned: same key, same partition count). Partition numbers are spread round-robin over
 * the members sorted by id, which keeps the assignment deterministic.
 */
export const coPartitionedAssigner: PartitionAssigner = ({ cluster }) => ({
  name: "CoPartitionedAssigner",
  version: 1,
  async assign({ members, topics }) {
    const memberIds = members.map((m) => m.memberId).sort();
    const byMember = new Map<string, Record<string, number[]>>(memberIds.map((id) => [id, {}]));
    for (const topic of topics) {
      const partitions = cluster
        .findTopicPartitionMetadata(topic)
        .map((p) => p.partitionId)
        .sort((a, b) => a - b);
      for (const partition of partitions) {
        const owner = memberIds[partition % memberIds.length];
        if (owner === undefined) continue;
        const assignment = byMember.get(owner);
        if (!assignment) continue;
        const list = assignment[topic] ?? [];
        list.push(partition);
        assignment[topic] = list;
      }
    }
    return memberIds.map((memberId) => ({
      memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: 1,
        assignment: byMember.get(memberId) ?? {},
        userData: Buffer.alloc(0),
      }),
    }));
  },
  protocol({ topics }) {
    return {
      name: "CoPartitionedAssigner",
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }),
    };
  },
});
