// The local provider servers as processes of the stack, started detached like the attester (../attester.ts)
// so they outlive whoever started them: one process per provider, each on its fixed port, restarted when
// the chains it reads were redeployed. Their URLs and keys go to the stack file's `providers`, where the
// service finds them when no provider key is set (src/providers/settings.ts).
import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LocalChain } from "../chains.ts";
import { isAlive, sleep, startScriptServer } from "../processes.ts";
import { localNetwork } from "./alchemy.ts";
import type { LocalSolanaMarket } from "./jupiter.ts";

/** One provider server: its script (in this folder), port and a request that its own answer proves it up. */
export interface ProviderServerSpec {
  name: string;
  script: string;
  port: number;
  /** Environment the script reads besides PROVIDER_PORT and PROVIDER_API_KEY. */
  env: Record<string, string>;
  /** Whether the server on `url` answers as this provider does. */
  answers(url: string): Promise<boolean>;
}

/** The key the local servers take: the service sends it like a real one, and a wrong key is refused. */
export const LOCAL_PROVIDER_KEY = "local-provider-key";
export const ALCHEMY_PORT = 18548;
export const ZEROEX_PORT = 18549;
export const JUPITER_PORT = 18550;
const START_TIMEOUT_MS = 30_000;

/** The stack file's `providers` entry (src/app/infra.ts reads it). */
export interface LocalProviderUrls {
  alchemy: { rpcUrl: string; apiUrl: string; apiKey: string; networks: Record<string, string> };
  zeroEx: { apiUrl: string; apiKey: string };
  jupiter: { apiUrl: string; apiKey: string };
}

const probe = async (url: string, init: RequestInit, expect: (status: number) => boolean) => {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(1000) });
    return expect(res.status) && typeof (await res.json()) === "object";
  } catch {
    return false;
  }
};

/** The market our Jupiter reads: the node, its USDC and the pool (the stack file's `solana` entry). */
const solanaMarket = (s: LocalSolanaMarket): LocalSolanaMarket => ({
  rpcUrl: s.rpcUrl,
  usdcMint: s.usdcMint,
  pool: { key: { publicKey: s.pool.key.publicKey }, usdcAccount: s.pool.usdcAccount },
});

export function providerSpecs(
  chains: readonly LocalChain[],
  solana?: LocalSolanaMarket,
): ProviderServerSpec[] {
  const env = { PROVIDER_CHAINS: JSON.stringify(chains) };
  return [
    {
      name: "alchemy",
      script: "alchemy.ts",
      port: ALCHEMY_PORT,
      env,
      // A wrong key is Alchemy's 401 with a JSON-RPC error.
      answers: (url) =>
        probe(`${url}/prices/v1/not-the-key/tokens/by-symbol?symbols=ETH`, {}, (status) => status === 401),
    },
    {
      name: "zeroex",
      script: "zeroex.ts",
      port: ZEROEX_PORT,
      env,
      answers: (url) => probe(`${url}/swap/allowance-holder/quote`, {}, (status) => status === 401),
    },
    {
      name: "jupiter",
      script: "jupiter.ts",
      port: JUPITER_PORT,
      env: { PROVIDER_SOLANA: solana ? JSON.stringify(solanaMarket(solana)) : "" },
      // No key is Jupiter's 401 with { error }.
      answers: (url) => probe(`${url}/price/v3?ids=x`, {}, (status) => status === 401),
    },
  ];
}

export function providerUrls(chains: readonly LocalChain[]): LocalProviderUrls {
  const alchemy = `http://127.0.0.1:${ALCHEMY_PORT}`;
  return {
    alchemy: {
      rpcUrl: `${alchemy}/{network}/v2`,
      apiUrl: alchemy,
      apiKey: LOCAL_PROVIDER_KEY,
      networks: Object.fromEntries(chains.map((c) => [String(c.chainId), localNetwork(c.chainId)])),
    },
    zeroEx: { apiUrl: `http://127.0.0.1:${ZEROEX_PORT}`, apiKey: LOCAL_PROVIDER_KEY },
    jupiter: { apiUrl: `http://127.0.0.1:${JUPITER_PORT}`, apiKey: LOCAL_PROVIDER_KEY },
  };
}

const files = (root: string, name: string) => ({
  pid: path.join(root, "run", `provider-${name}.pid`),
  /** What the running server was started with: reused only when the chains are the same. */
  config: path.join(root, "run", `provider-${name}.config`),
  log: path.join(root, "logs", `provider-${name}.log`),
});

/** Our server's pid, if the recorded one is alive and runs the script (not a recycled pid). */
async function ourPid(
  root: string,
  spec: Pick<ProviderServerSpec, "name" | "script">,
): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(files(root, spec.name).pid, "utf8").catch(() => ""), 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  return cmdline.includes(`providers/${spec.script}`) ? pid : undefined;
}

export async function ensureProviderServer(
  root: string,
  spec: ProviderServerSpec,
  log: (line: string) => void,
): Promise<{ url: string; started: boolean }> {
  const url = `http://127.0.0.1:${spec.port}`;
  const config = createHash("sha256").update(JSON.stringify(spec.env)).digest("hex");
  const f = files(root, spec.name);
  const running = await ourPid(root, spec);
  if (running !== undefined) {
    if ((await readFile(f.config, "utf8").catch(() => "")) === config && (await spec.answers(url))) {
      log(`${spec.name}: reusing ${url}`);
      return { url, started: false };
    }
    log(`${spec.name}: pid ${running} reads other chains or does not answer, restarting it`);
    await stopProviderServer(root, spec);
  }
  if (await spec.answers(url))
    throw new Error(`port ${spec.port} is taken by a ${spec.name} this stack did not start`);
  await startScriptServer({
    name: `${spec.name} on ${url}`,
    script: fileURLToPath(new URL(`./${spec.script}`, import.meta.url)),
    env: { ...spec.env, PROVIDER_PORT: String(spec.port), PROVIDER_API_KEY: LOCAL_PROVIDER_KEY },
    files: f,
    config,
    answers: () => spec.answers(url),
    timeoutMs: START_TIMEOUT_MS,
  });
  log(`${spec.name}: started on ${url}`);
  return { url, started: true };
}

export async function stopProviderServer(
  root: string,
  spec: Pick<ProviderServerSpec, "name" | "script">,
  log: (line: string) => void = () => {},
): Promise<void> {
  const pid = await ourPid(root, spec);
  if (pid !== undefined) {
    process.kill(pid, "SIGTERM");
    for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
    log(`stopped ${spec.name} (pid ${pid})`);
  }
  await rm(files(root, spec.name).pid, { force: true });
}

/** Every provider server, started side by side; the stack file's entry for them. */
export async function ensureProviders(opts: {
  root: string;
  chains: readonly LocalChain[];
  solana: LocalSolanaMarket;
  log: (line: string) => void;
}): Promise<{ providers: LocalProviderUrls; started: boolean }> {
  const results = await Promise.all(
    providerSpecs(opts.chains, opts.solana).map((spec) => ensureProviderServer(opts.root, spec, opts.log)),
  );
  return { providers: providerUrls(opts.chains), started: results.some((r) => r.started) };
}

export async function stopProviders(root: string, log?: (line: string) => void): Promise<void> {
  await Promise.all(providerSpecs([]).map((spec) => stopProviderServer(root, spec, log)));
}
