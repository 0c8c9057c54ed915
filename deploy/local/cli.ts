#!/usr/bin/env node
import { exitWith, runCli, say } from "../../src/app/cli.ts";
import { stackRoot } from "../../src/app/infra.ts";
import { parseConfig } from "../../src/config.ts";
import { ensureStack, readStack, stackFile, stopStack } from "./stack.ts";

/**
 * The service's CLI with the local stack plugged in: `npm start` starts the stack when the
 * environment names no servers, and `stack start|stop|status` drives it. Every other command is
 * src/cli.ts's, unchanged.
 */
async function stackCommand(action: string): Promise<number> {
  const root = stackRoot(parseConfig());
  if (action === "start") {
    const info = await ensureStack({ root, log: say });
    say(JSON.stringify(info, null, 2));
    say(`written to ${stackFile(root)}`);
    return 0;
  }
  if (action === "stop") {
    await stopStack({ root, log: say });
    say("stack stopped");
    return 0;
  }
  if (action === "status") {
    const info = await readStack(root);
    say(info ? JSON.stringify(info, null, 2) : "no stack file");
    return info ? 0 : 1;
  }
  process.stderr.write(`unknown stack action: ${action}\n`);
  return 2;
}

const [command, ...rest] = process.argv.slice(2);
// The local stack's chains are test chains: stealth settlement (experimental, off by default) is on
// there unless the environment says otherwise (docs/STEALTH.md, "Gating").
process.env.STEALTH_ENABLED ??= "true";
exitWith(
  command === "stack"
    ? stackCommand(rest[0] ?? "start")
    : runCli(command === undefined ? [] : [command, ...rest], { ensureStack }),
);
