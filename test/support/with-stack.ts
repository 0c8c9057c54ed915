import { spawn } from "node:child_process";
import { ensureStack, stopStack } from "../../deploy/local/stack.ts";

/**
 * Runs a command (the integration and end-to-end suites) with the local stack up, and afterwards
 * stops whatever this run started, so CI leaves nothing behind. Servers named in the environment
 * (KAFKA_BROKERS, CASSANDRA_CONTACT_POINTS, EVM_CHAINS) are used as they are.
 */
const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write("usage: with-stack <command> [args...]\n");
  process.exit(2);
}
const started = Date.now();
const stack = await ensureStack({ root: ".local", log: (l) => process.stdout.write(`[stack] ${l}\n`) });
process.stdout.write(`[stack] ready in ${Date.now() - started} ms\n`);
const code = await new Promise<number>((resolve) => {
  const child = spawn(command, args, { stdio: "inherit", shell: false });
  child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});
const startedAny = stack.started.kafka || stack.started.cassandra || stack.started.chains;
if (startedAny && process.env.KEEP_STACK !== "1") {
  await stopStack({ root: ".local" });
  process.stdout.write("[stack] stopped what this run started\n");
}
process.exit(code);
