// The actors role of the real service and a gateway bus to send entity commands to it and read the
// replies: for tests of an entity on the generic host across restarts.
import { createGatewayBus, type GatewayBus } from "../../src/kafka/gateway-bus.ts";
import { createLogger } from "../../src/logging.ts";
import { codecs } from "./codecs.ts";
import { startTestService, type TestService } from "./service.ts";

export async function startActorsWithBus(
  env: Record<string, string>,
): Promise<{ service: TestService; bus: GatewayBus }> {
  const service = await startTestService({ roles: ["actors"], env });
  const bus = createGatewayBus({
    codecs,
    kafka: service.kafka,
    replyTimeoutMs: 20_000,
    recentStates: 50_000,
    log: createLogger("warn", "test"),
  });
  await bus.start();
  return { service, bus };
}
