import { spawn } from "node:child_process";
import { ensureStack, stopStack } from "../../deploy/local/stack.ts";
import { startBeside } from "./beside.ts";
import { dockerEngine, startContainers } from "./containers.ts";
import { chooseStack, describeChoice } from "./stack-choice.ts";

/**
 * Runs a command (the integration and end-to-end suites) with the servers up, and afterwards stops
 * whatever this run started, so CI leaves nothing behind. Kafka and Cassandra: those the
 * environment names (KAFKA_BROKERS, CASSANDRA_CONTACT_POINTS) as they are, else containers when a
 * Docker engine answers, else the local stack (stack-choice.ts); its first line says which. The
 * chains come from the local stack. `--beside "<shell command>"` runs a second command at the same
 * time, on a broker of its own (beside.ts), for the suites that never touch the chains.
 */
const argv = process.argv.slice(2);
const besideCommand = argv[0] === "--beside" ? argv[1] : undefined;
const [command, ...args] = besideCommand === undefined ? argv : argv.slice(2);
if (!command) {
  process.stderr.write('usage: with-stack [--beside "<shell command>"] <command> [args...]\n');
  process.exit(2);
}
const started = Date.now();
const engine = await dockerEngine();
const choice = chooseStack({ engineAnswers: engine.answers, env: process.env });
process.stdout.write(`${describeChoice(choice, engine.detail)}\n`);
const containers = await startContainers(choice);
// The local stack, and the child, take the containers' addresses as if the environment named them.
Object.assign(process.env, containers.env);
const stack = await ensureStack({ root: ".local", log: (l) => process.stdout.write(`[stack] ${l}\n`) });
process.stdout.write(`[stack] ready in ${Date.now() - started} ms\n`);
// Every process of both commands names its broker in the environment, never by the stack file:
// the beside command's ensureStack calls write its own broker into .local/stack.json.
process.env.KAFKA_BROKERS ??= stack.kafka.brokers.join(",");
const beside = besideCommand === undefined ? undefined : await startBeside("off-chain", besideCommand);
const mainCode = await new Promise<number>((resolve) => {
  const child = spawn(command, args, { stdio: "inherit", shell: false });
  child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});
const besideCode = (await beside?.done) ?? 0;
const code = mainCode !== 0 ? mainCode : besideCode;
await containers.stop();
const startedAny = stack.started.kafka || stack.started.cassandra || stack.started.chains;
if (startedAny && process.env.KEEP_STACK !== "1") {
  await stopStack({ root: ".local" });
  process.stdout.write("[stack] stopped what this run started\n");
}
process.exit(code);
