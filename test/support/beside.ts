import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { startThrowawayServer } from "./throwaway-servers.ts";

/**
 * Runs a shell command beside the main test command, on a Kafka broker of its own (a throwaway one)
 * and its own Cassandra keyspace, so its consumer groups and topics never meet the main command's.
 * Its lines are prefixed with `[name]`. For suites that never touch the chains: the anvil relayer
 * keys are shared by everything else, which is why the rest runs one file at a time.
 */
export async function startBeside(name: string, command: string): Promise<{ done: Promise<number> }> {
  const kafka = await startThrowawayServer("kafka");
  const keyspace = `${process.env.CASSANDRA_KEYSPACE ?? "settlement"}_${name.replace(/\W/g, "_")}`;
  process.stdout.write(`[${name}] ${command} (Kafka ${kafka.address}, keyspace ${keyspace})\n`);
  const child = spawn("sh", ["-c", command], {
    env: { ...process.env, KAFKA_BROKERS: kafka.address, CASSANDRA_KEYSPACE: keyspace },
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`[${name}] ${line}\n`));
  const done = new Promise<number>((resolve) => {
    child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  }).then(async (code) => {
    await kafka.remove();
    process.stdout.write(`[${name}] ${code === 0 ? "passed" : `failed (exit ${code})`}\n`);
    return code;
  });
  return { done };
}
