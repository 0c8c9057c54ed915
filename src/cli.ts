#!/usr/bin/env node
import { exitWith, runCli, say } from "./app/cli.ts";

// The service on servers that already run (the environment, or the local stack file). The local
// stack's own commands, and `start` that starts it first, are deploy/local/cli.ts (npm start,
// npm run stack): src/ never imports deploy/.
const argv = process.argv.slice(2);
if (argv[0] === "stack") {
  say("the local stack is driven by deploy/local/cli.ts: npm run stack -- start|stop|status");
  process.exit(2);
}
exitWith(runCli(argv));
