#!/usr/bin/env node
import { exitWith, runCli, say } from "../../src/app/cli.ts";
import { stackRoot } from "../../src/app/infra.ts";
import { parseConfig } from "../../src/config.ts";
import { ensureStack, readStack, STACK_ACTIONS, type StackAction, stackFile, stopStack } from "./stack.ts";

/**
 * The service's CLI with the local stack plugged in: `npm start` starts the stack when the
 * environment names no servers, and `stack start|stop|status` drives it. Every other command is
 * src/cli.ts's, unchanged.
 */
const stackActions: Record<StackAction, (root: string) => Promise<number>> = {
  async start(root) {
    const info = await ensureStack({ root, log: say });
    say(JSON.stringify(info, null, 2));
    say(`written to ${stackFile(root)}`);
    return 0;
  },
  async stop(root) {
    await stopStack({ root, log: say });
    say("stack stopped");
    return 0;
  },
  async status(root) {
    const info = await readStack(root);
    say(info ? JSON.stringify(info, null, 2) : "no stack file");
    return info ? 0 : 1;
  },
};

async function stackCommand(action: string): Promise<number> {
  if (!(STACK_ACTIONS as readonly string[]).includes(action)) {
    process.stderr.write(`unknown stack action: ${action} (${STACK_ACTIONS.join(", ")})\n`);
    return 2;
  }
  return stackActions[action as StackAction](stackRoot(parseConfig()));
}

const [command, ...rest] = process.argv.slice(2);
// The local stack's chains are test chains: stealth settlement (experimental, off by default) and
// merchant mode with test keys are on there unless the environment says otherwise (docs/STEALTH.md,
// "Gating"; docs/MERCHANTS.md), so every flow of the README's "Try it" runs on a plain `npm start`.
process.env.STEALTH_ENABLED ??= "true";
process.env.MERCHANT_MODE ??= "development";
exitWith(
  command === "stack"
    ? stackCommand(rest[0] ?? "start")
    : runCli(command === undefined ? [] : [command, ...rest], { ensureStack }),
);
