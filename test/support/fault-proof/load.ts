import { randomUUID } from "node:crypto";
import { type Address, createPublicClient, createWalletClient, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createNonceManager, jsonRpc } from "viem/nonce";
import { type LocalChain, toViemChain } from "../../../deploy/local/chains.ts";
import { testUsdcAbi } from "../../../src/chains/evm/abi.ts";
import { type ApiClient, createApiClient } from "../../../src/client/api-client.ts";
import {
  commit,
  createSession,
  getSession,
  makeBurner,
  newBurner,
  refund,
  type Session,
  signIntent,
  signRefund,
} from "../../../src/client/index.ts";
import type { Cluster } from "./cluster.ts";
import { OPERATOR_SECRET } from "./cluster.ts";

/**
 * The fault proof's steady load: one merchant with a webhook endpoint, and payers that each open a
 * session with the merchant's pk_ (a P2P request of the merchant, so its webhooks fire), deposit
 * USDC on the cluster's own anvil chain, and then either commit (swept to a fresh address on the same chain)
 * or have the burner-signed refund sent (every third payer). Every call goes through the payer's
 * client library, whose fetch here picks one of the gateways up at that moment: a killed gateway
 * is a network error, retried on another.
 */

export type FlowKind = "commit" | "refund";

export interface Flow {
  n: number;
  kind: FlowKind;
  burner: Address;
  amount: bigint;
  /** The session's id once created. */
  id: string | null;
  /** The last step reached: created, funded, detected, committed / refund sent, done. */
  step: string;
  startedAt: number;
  doneAt: number | null;
  /** Why the flow gave up, if it did. */
  error: string | null;
  /** The session's status when the flow ended (a commit ends on `swept` or `failed`). */
  status: string | null;
}

/** The base the client is given; the fetch swaps it for a live gateway. */
const BASE = "http://gateway.fault-proof";
const WAIT_MS = 300_000;

/**
 * Every HTTP request of the payers' clients, by how it ended (the rolling restart's count, issue 29
 * item 4): answered (a 503 with Retry-After apart, a clean "try again"), answered with another 5xx,
 * refused at connect (no gateway took it: its listener had closed), or taken and never answered.
 */
export interface RequestTally {
  answered: number;
  clean503: number;
  other5xx: string[];
  refused: number;
  unanswered: string[];
}

export interface Load {
  flows: Flow[];
  /** The requests by phase of the run (`phase`): "load" until told otherwise. */
  requests: Map<string, RequestTally>;
  /** The requests from now on are counted under `name`. */
  phase(name: string): void;
  /**
   * Resolves once every request in flight now has ended (at most `withinMs`): between two passes
   * of a roll, so a request the first pass started is not cut by the next one's kills and counted
   * against the first.
   */
  settle(withinMs: number): Promise<void>;
  merchantId: string;
  /** Starts no more flows. */
  close(): void;
  /** Stops starting flows and waits for those under way to end (or give up after WAIT_MS). */
  stop(): Promise<void>;
}

/** Retries a call whose failure is the service being unreachable or unavailable, until WAIT_MS. */
async function persist<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      const status = (err as { status?: number }).status ?? 0;
      const unreachable = status === 0 || status >= 500;
      if (!unreachable || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function call(cluster: Cluster, path: string, method: string, key: string, body?: unknown) {
  for (let tries = 0; ; tries++) {
    const url = cluster.gateways()[tries % Math.max(1, cluster.gateways().length)];
    try {
      if (!url) throw new Error("no gateway up");
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.status >= 500) throw new Error(`${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    } catch (err) {
      if (tries > 30) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** A merchant (made by the operator) whose webhook endpoint is `hookUrl`. */
export async function setUpMerchant(cluster: Cluster, hookUrl: string) {
  // Asked again (a new merchant each time, nothing else refers to it) while the answer has no keys:
  // a long-form run once got an error body here from a gateway that had just started.
  let made: Record<string, unknown> = {};
  for (let tries = 0; typeof made.secret_key !== "string"; tries++) {
    if (tries === 10) throw new Error(`no merchant made: ${JSON.stringify(made)}`);
    if (tries > 0) await new Promise((r) => setTimeout(r, 2000));
    made = await call(cluster, "/v1/operator/merchants", "POST", OPERATOR_SECRET, {
      name: "Fault proof",
      email: `fault-${randomUUID()}@merchant.test`,
    });
  }
  const merchant = made.merchant as { id: string };
  const sk = made.secret_key as string;
  const pk = made.publishable_key as string;
  const hook = await call(cluster, "/v1/webhook_endpoints", "PUT", sk, { url: hookUrl });
  if (typeof hook.secret !== "string") throw new Error(`webhook endpoint not set: ${JSON.stringify(hook)}`);
  return { id: merchant.id, pk };
}

/**
 * The payer's client over whichever gateways are up; POST /sessions carries the merchant's pk_.
 * `answered` keeps, per method and path, the last few answers: when, which gateway and its status
 * (with the error's code for a 4xx or 5xx): a refusal may come from that gateway's own read or from
 * the session's owner, and a payer that gave up is explained by them.
 */
function payerClient(
  cluster: Cluster,
  pk: string,
  tally: () => RequestTally,
  answered: Map<string, string[]>,
  inFlight: Set<Promise<unknown>>,
): ApiClient {
  let turn = 0;
  const failover: typeof fetch = (input, init) => {
    const urls = cluster.gateways();
    const url = urls[turn++ % Math.max(1, urls.length)];
    if (!url) return Promise.reject(new TypeError("fetch failed: no gateway up"));
    const target = String(input instanceof Request ? input.url : input).replace(BASE, url);
    const headers = new Headers(init?.headers);
    if (init?.method === "POST" && target.endsWith("/sessions")) headers.set("authorization", `Bearer ${pk}`);
    const counted = tally();
    const sent = fetch(target, { ...init, headers });
    const ended = sent.then(
      () => {},
      () => {},
    );
    inFlight.add(ended);
    void ended.then(() => inFlight.delete(ended));
    return sent.then(
      (res) => {
        counted.answered++;
        const gateway = cluster.procs.find((p) => p.url === url)?.name ?? url;
        const key = `${init?.method ?? "GET"} ${new URL(target).pathname}`;
        const note = (what: string) =>
          answered.set(key, [
            ...(answered.get(key) ?? []).slice(-5),
            `${new Date().toISOString().slice(11, 23)} ${gateway} ${what}`,
          ]);
        if (res.status < 400) note(String(res.status));
        else
          void res
            .clone()
            .text()
            .then(
              (t) => note(`${res.status} ${t.slice(0, 160)}`),
              () => note(String(res.status)),
            );
        if (res.status === 503 && res.headers.get("retry-after")) counted.clean503++;
        else if (res.status >= 500) counted.other5xx.push(`${res.status} ${init?.method ?? "GET"} ${target}`);
        return res;
      },
      (err: unknown) => {
        const code = (err as { cause?: { code?: string } }).cause?.code;
        if (code === "ECONNREFUSED") counted.refused++;
        else counted.unanswered.push(`${code ?? String(err)} ${init?.method ?? "GET"} ${target}`);
        throw err;
      },
    );
  };
  // More tries than a browser's default: a kill takes a gateway away for seconds, not milliseconds.
  return createApiClient({ baseUrl: BASE, fetch: failover, retry: { attempts: 12, maxMs: 2000 } });
}

/** Clients of the cluster's chain: a reader, and its funded account sending deposits. */
export function chainClients(chain: LocalChain) {
  const viemChain = toViemChain(chain);
  const client = createPublicClient({
    chain: viemChain,
    transport: http(chain.rpcUrl),
    pollingInterval: 200,
  });
  // One nonce manager for every deposit of the run (they are sent concurrently), and a new one per
  // run: viem's shared manager keys nonces by address and chain id, which a second run's fresh chain
  // repeats, so it handed out the first run's nonces and no deposit of the second was ever mined.
  const nonceManager = createNonceManager({ source: jsonRpc() });
  const account = privateKeyToAccount(chain.funded.privateKey as Hex, { nonceManager });
  const wallet = createWalletClient({ account, chain: viemChain, transport: http(chain.rpcUrl) });
  const fund = async (to: Address, amount: bigint) => {
    const hash = await wallet.writeContract({
      address: chain.usdc,
      abi: testUsdcAbi,
      functionName: "transfer",
      args: [to, amount],
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`deposit ${hash} reverted`);
  };
  return { chain, client, fund };
}
export type ChainClients = ReturnType<typeof chainClients>;

export function startLoad(
  cluster: Cluster,
  A: ChainClients,
  merchant: { id: string; pk: string },
  opts: { everyMs: number; amount: bigint },
): Load {
  const requests = new Map<string, RequestTally>();
  let current = "load";
  const tally = () => {
    const known = requests.get(current);
    if (known) return known;
    const fresh: RequestTally = { answered: 0, clean503: 0, other5xx: [], refused: 0, unanswered: [] };
    requests.set(current, fresh);
    return fresh;
  };
  const answered = new Map<string, string[]>();
  const inFlight = new Set<Promise<unknown>>();
  const client = payerClient(cluster, merchant.pk, tally, answered, inFlight);
  const flows: Flow[] = [];
  const running = new Set<Promise<void>>();
  const chain = A.chain;

  const until = async (flow: Flow, ok: (s: Session) => boolean): Promise<Session> => {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const s = await getSession(client, { id: flow.id as string }).catch(() => null);
      if (s && ok(s)) return s;
      if (Date.now() > deadline) throw new Error(`timed out at ${flow.step} (status ${s?.status ?? "?"})`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  const pay = async (flow: Flow) => {
    const burner = await newBurner(chain);
    flow.burner = burner.address;
    const destination = { address: makeBurner().address, chainId: chain.chainId };
    const idempotencyKey = `fault-proof-${flow.n}-${burner.address}`;
    // A patient payer: while every gateway is down (both killed, or a broker restart answering
    // 503) it asks again under the same Idempotency-Key, so a retry never opens a second session.
    const created = await persist(() => createSession(client, { burner, destination, idempotencyKey }));
    flow.id = created.id;
    flow.step = "created";
    await A.fund(burner.address, flow.amount);
    flow.step = "funded";
    const detected = await until(
      flow,
      (s) => s.status === "detected" && s.detected_amount === String(flow.amount),
    );
    flow.step = "detected";
    if (flow.kind === "commit") {
      const signed = await signIntent({ signer: burner.account, session: detected, quote: null });
      await commit(client, { id: created.id, burner, signed, retryFor: WAIT_MS });
      flow.step = "committed";
      const ended = await until(flow, (s) => s.status === "swept" || s.status === "failed");
      flow.status = ended.status;
    } else {
      const body = await signRefund({
        signer: burner.account,
        chainId: chain.chainId,
        token: chain.usdc,
        to: makeBurner().address,
        amount: flow.amount,
      });
      // The service knows a Refund by its salt: asking again never refunds twice.
      await persist(() => refund(client, { id: created.id, refund: body }));
      flow.step = "refund sent";
      const ended = await until(
        flow,
        (s) => s.refunds.length > 0 && s.refunds.every((r) => r.status === "confirmed"),
      );
      flow.status = ended.status;
    }
    flow.step = "done";
    flow.doneAt = Date.now();
  };

  const timer = setInterval(() => {
    const n = flows.length;
    const flow: Flow = {
      n,
      kind: n % 3 === 2 ? "refund" : "commit",
      burner: "0x",
      amount: opts.amount + BigInt(n),
      id: null,
      step: "new",
      startedAt: Date.now(),
      doneAt: null,
      error: null,
      status: null,
    };
    flows.push(flow);
    const p = pay(flow)
      .catch((err: unknown) => {
        flow.error = err instanceof Error ? err.message.slice(0, 300) : String(err);
        const step = flow.kind === "commit" ? "commit" : "refund";
        const last = flow.id === null ? undefined : answered.get(`POST /sessions/${flow.id}/${step}`);
        if (last !== undefined) flow.error += ` (last ${step} answers: ${last.join("; ")})`;
      })
      .finally(() => running.delete(p));
    running.add(p);
  }, opts.everyMs);

  return {
    flows,
    requests,
    phase: (name) => {
      current = name;
    },
    async settle(withinMs) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((r) => {
        timer = setTimeout(r, withinMs);
      });
      await Promise.race([Promise.all([...inFlight]), limit]);
      clearTimeout(timer);
    },
    merchantId: merchant.id,
    close: () => clearInterval(timer),
    async stop() {
      clearInterval(timer);
      await Promise.all([...running]);
    },
  };
}
