// Drives the executor the way the session actors do: ExecutorCommand records on executor.commands, and
// ExecutorResult records read back from executor.results. The executor itself runs as a child process
// (`tsx src/cli.ts executor`), so a test can kill -9 it; the chains are the local stack's anvils, or
// (`ownChains`) two of the file's own with an attester of its own.
import { randomUUID } from "node:crypto";
import type { Address, Hex, SignedAuthorization } from "viem";
import { afterAll, beforeAll } from "vitest";
import { attesterChainsFromStack, startAttesterServer } from "../../deploy/local/cctp-attester.ts";
import { DEV_ACCOUNTS } from "../../deploy/local/chains.ts";
import { chainsSetting } from "../../deploy/local/private-chains.ts";
import { type IntentMessage, intentTypedData } from "../../src/chains/evm/typed-data/eip712.ts";
import {
  createBatchConsumer,
  createPlainProducer,
  type PlainProducer,
} from "../../src/kafka/at-least-once.ts";
import type { KafkaClient } from "../../src/kafka/client.ts";
import type { ExecutorCommand } from "../../src/records/executor-commands.ts";
import type { ExecutorResult } from "../../src/records/executor-results.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import { waitFor } from "./actor-host.ts";
import { type Child, startChild } from "./child-process.ts";
import { codecs } from "./codecs.ts";
import { type Ctx, type newBurner, setUpChains, setUpOwnChains } from "./delegate.ts";
import { startTestService, type TestService } from "./service.ts";

export type Burner = Awaited<ReturnType<typeof newBurner>>["burner"];
/** On the anvil chains this bus drives, every transaction id a result carries is a 0x hash. */
type OnEvm<R> = R extends { txHash: string }
  ? Omit<R, "txHash"> & { txHash: Hex }
  : R extends { txHash: string | null }
    ? Omit<R, "txHash"> & { txHash: Hex | null }
    : R;
export type Result = OnEvm<ExecutorResult["result"]>;

/** The executor role as a child process with `env` on top of the environment. */
export function startExecutor(env: Record<string, string> = {}): Promise<Child> {
  return startChild("executor", ["src/cli.ts", "executor"], {
    env: { LOG_LEVEL: "warn", ...env },
    ready: /^executor\s+(.*)$/,
    timeoutMs: 120_000,
  });
}

/** SIGKILL: no shutdown, no offset commit, no last write. */
export function killHard(child: Child): void {
  process.kill(child.pid, "SIGKILL");
}

/** A Settle command for a burner's signed Intent on the context's chain, as the session would send it. */
export async function settleCommand(
  c: Ctx,
  b: { burner: Burner; auth: SignedAuthorization },
  intent: IntentMessage,
  feeBps = 80,
): Promise<ExecutorCommand> {
  const sessionId = randomUUID();
  const signature = await b.burner.signTypedData(intentTypedData(c.chain.chainId, b.burner.address, intent));
  const { address, chainId, nonce, r, s, yParity } = b.auth;
  return {
    commandId: `${sessionId}:settle`,
    issuedAt: Date.now(),
    sessionId,
    chainId: c.chain.chainId,
    command: {
      type: "Settle",
      burner: b.burner.address.toLowerCase() as Address,
      auth: { address, chainId, nonce, r: r as Hex, s: s as Hex, yParity: yParity ?? 0 },
      intent: {
        destChainId: Number(intent.destChainId),
        destAddr: intent.destAddr,
        minOut: intent.minOut,
        deadline: Number(intent.deadline),
        salt: intent.salt,
        inToken: intent.inToken,
        maxIn: intent.maxIn,
        appFeeBps: intent.appFeeBps,
        appFeeRecipient: intent.appFeeRecipient,
      },
      signature,
      feeBps,
    },
  };
}

/** Writes commands to executor.commands and collects what comes back on executor.results, by command id. */
export function executorBus(kafka: KafkaClient) {
  const results = new Map<string, Result[]>();
  const producer: PlainProducer = createPlainProducer(kafka);
  let fetched: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    fetched = resolve;
  });
  const consumer = createBatchConsumer(kafka, {
    groupId: `test.executor-results.${randomUUID()}`,
    topics: [TOPIC.executorResults],
    fromBeginning: false,
    commit: false,
    onReady: () => fetched(),
    async onBatch(_topic, _partition, records) {
      for (const r of records) {
        const decoded = codecs.executorResult.decode(r.value ?? Buffer.alloc(0));
        const list = results.get(decoded.commandId) ?? [];
        list.push(decoded.result as Result);
        results.set(decoded.commandId, list);
      }
    },
  });
  return {
    /** Resolves once the results consumer fetched: it starts at the end, so it sees every later result. */
    async start() {
      await producer.connect();
      await consumer.start();
      await ready;
    },
    async stop() {
      await consumer.stop();
      await producer.disconnect();
    },
    /** Keyed by session id like the actors' outbox; `partition` pins it (to put two sessions side by side). */
    async send(command: ExecutorCommand, partition?: number) {
      await producer.send(TOPIC.executorCommands, [
        {
          key: command.sessionId ?? command.commandId,
          value: codecs.executorCommand.encode(command),
          ...(partition === undefined ? {} : { partition }),
        },
      ]);
    },
    /** The results of a command so far, in order. */
    of: (commandId: string): Result[] => results.get(commandId) ?? [],
    /** Waits for a result of `type` for the command (and a match on it), returning it. */
    async waitFor<T extends Result["type"]>(
      commandId: string,
      type: T,
      match: (r: Extract<Result, { type: T }>) => boolean = () => true,
      timeoutMs = 90_000,
    ): Promise<Extract<Result, { type: T }>> {
      return waitFor(
        `${type} for ${commandId} (so far: ${JSON.stringify(results.get(commandId)?.map((r) => r.type))})`,
        () =>
          (results.get(commandId) ?? []).find(
            (r): r is Extract<Result, { type: T }> =>
              r.type === type && match(r as Extract<Result, { type: T }>),
          ),
        timeoutMs,
      );
    },
  };
}

/**
 * Stops or resumes block production on a local anvil (started with --block-time 1, automine off):
 * while stopped, a broadcast transaction waits in the pool.
 */
export async function setMining(c: Ctx, on: boolean): Promise<void> {
  const res = await fetch(c.chain.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_setIntervalMining", params: [on ? 1 : 0] }),
  });
  const body = (await res.json()) as { error?: { message: string } };
  if (body.error) throw new Error(`evm_setIntervalMining: ${body.error.message}`);
}

/**
 * The file's fixtures, set up in its beforeAll and closed in its afterAll: both chains, the servers
 * (topics and migrations applied, no roles), the command/result bus, and the executors it starts.
 * With `ownChains` the chains are the file's own (delegate.ts, setUpOwnChains) and so is the CCTP
 * attester (in this process), given to the executors by CHAINS and ATTESTATION_API_URL: the file
 * shares no chain account with the others and runs in the off-chain lane (test/integration/own-chain/).
 */
export function executorTestBed(opts: { ownChains?: boolean } = {}) {
  const bed = {} as {
    src: Ctx;
    dst: Ctx;
    service: TestService;
    bus: ReturnType<typeof executorBus>;
  };
  const children: Child[] = [];
  /** The settings that point the service and its executors at the file's own chains. */
  let env: Record<string, string> = {};
  const closeOwn: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    let ctx: (name: "source" | "destination") => Ctx;
    if (opts.ownChains) {
      const own = await setUpOwnChains();
      closeOwn.push(own.stop);
      const attester = await startAttesterServer({
        chains: attesterChainsFromStack(own),
        privateKey: DEV_ACCOUNTS.attester.privateKey,
      });
      closeOwn.push(attester.close);
      ctx = own.ctx;
      env = { CHAINS: chainsSetting(own.chains), ATTESTATION_API_URL: attester.url };
    } else ctx = await setUpChains();
    [bed.src, bed.dst] = [ctx("source"), ctx("destination")];
    bed.service = await startTestService({ roles: [], env });
    bed.bus = executorBus(bed.service.kafka);
    await bed.bus.start();
  }, 240_000);
  afterAll(async () => {
    await stopExecutors();
    await bed.bus?.stop();
    await bed.service?.stop();
    for (const close of closeOwn.splice(0).reverse()) await close();
  });
  async function stopExecutors(): Promise<void> {
    for (const c of children.splice(0)) await c.stop();
  }
  return {
    bed,
    /** Starts an executor child (stopped by stopExecutors or after the file). */
    async executor(more: Record<string, string> = {}): Promise<Child> {
      const child = await startExecutor({ ...env, ...more });
      children.push(child);
      return child;
    },
    stopExecutors,
  };
}
