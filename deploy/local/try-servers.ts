// By hand: `npx tsx deploy/local/try-servers.ts [--stop]` starts (or reuses) both servers and prints them.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureCassandra } from "./cassandra.ts";
import { ensureKafka } from "./kafka.ts";
import { stopCassandra, stopKafka } from "./processes.ts";

// The repo's .local/, whatever the current directory.
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", ".local");
const t0 = Date.now();
const log = (line: string) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${line}`);

if (process.argv.includes("--stop")) {
  log(`kafka stopped: ${await stopKafka(root)}`);
  log(`cassandra stopped: ${await stopCassandra(root)}`);
} else {
  // Both JVMs start side by side; each waits for its own readiness probe.
  const [kafka, cassandra] = await Promise.all([ensureKafka({ root, log }), ensureCassandra({ root, log })]);
  log(`kafka: ${JSON.stringify(kafka)}`);
  log(`cassandra: ${JSON.stringify(cassandra)}`);
}
