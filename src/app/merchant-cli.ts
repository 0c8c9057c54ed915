import { parseArgs } from "node:util";
import type { Config } from "../config.ts";
import { KEY_KINDS, type KeyKind } from "../domain/merchant/types.ts";
import type { MerchantAdmin } from "../gateway/admin/merchant-admin.ts";
import { MerchantRefusedError } from "../gateway/admin/merchant-commands.ts";
import { ReplyTimeoutError } from "../gateway/ports.ts";
import type { Logger } from "../logging.ts";
import { boot } from "./boot.ts";
import { merchantGatewayDeps } from "./entity-modules/merchant.ts";
import { startGatewayBus } from "./gateway-bus.ts";

const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `merchant create|roll|revoke`: the operator's commands, through Kafka to the running merchant
 * actors like a gateway's (the service must run in merchant mode). Keys are printed once.
 */
export async function merchantCommand(args: string[], config: Config, log: Logger): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: "string" },
      email: { type: "string" },
      id: { type: "string" },
      type: { type: "string", default: "secret" },
      key: { type: "string" },
    },
  });
  const usage = (why: string) => {
    process.stderr.write(
      `${why}\nusage: merchant create --name N --email E | roll --id M [--type T] | revoke --id M --key K\n`,
    );
    return 2;
  };
  if (config.MERCHANT_MODE === "off")
    return usage("MERCHANT_MODE is off: set it to development or production");
  const ok =
    (action === "create" && values.name && values.email) ||
    (action === "roll" && values.id && (KEY_KINDS as readonly string[]).includes(values.type ?? "")) ||
    (action === "revoke" && values.id && values.key);
  if (!ok) return usage(`merchant: missing or invalid arguments for "${action ?? ""}"`);

  try {
    return await withMerchantAdmin(config, log, async (admin) => {
      if (action === "create") {
        const { merchant, publishableKey, secretKey } = await admin.create({
          name: values.name as string,
          email: values.email as string,
        });
        say(`merchant        ${merchant.id} (${merchant.name} <${merchant.email}>)`);
        say(`publishable key ${publishableKey}`);
        say(`secret key      ${secretKey}`);
        say("The secret key is shown this once and stored only as a hash: keep it now.");
      } else if (action === "roll") {
        const rolled = await admin.roll(values.id as string, values.type as KeyKind);
        say(`new ${values.type} key ${rolled.key} (${rolled.keyId}); the previous one is revoked`);
      } else {
        await admin.revoke(values.id as string, values.key as string);
        say(`revoked ${values.key}`);
      }
      return 0;
    });
  } catch (err) {
    if (err instanceof MerchantRefusedError) {
      process.stderr.write(`refused: ${err.code} (${err.shortMessage})\n`);
      return 1;
    }
    if (err instanceof ReplyTimeoutError) {
      process.stderr.write(
        `${err.shortMessage}: is the service running with MERCHANT_MODE on? A create may have been made: ` +
          "retrying it answers merchant_exists; roll the keys then.\n",
      );
      return 1;
    }
    throw err;
  }
}

/**
 * Runs `use` with the operator's merchant admin, which reaches the running merchant actors through
 * Kafka as a gateway's does (the service must run in merchant mode); the connections close after.
 */
export async function withMerchantAdmin<T>(
  config: Config,
  log: Logger,
  use: (admin: MerchantAdmin) => Promise<T>,
): Promise<T> {
  if (config.MERCHANT_MODE === "off")
    throw new Error("MERCHANT_MODE is off: set it to development or production");
  const shared = await boot(config, log);
  const bus = await startGatewayBus(shared, log);
  try {
    const admin = merchantGatewayDeps(shared, bus, { commands: bus.commands })?.admin;
    if (!admin) throw new Error("MERCHANT_MODE is off");
    return await use(admin);
  } finally {
    await bus.stop();
    await shared.cassandra.shutdown();
  }
}
