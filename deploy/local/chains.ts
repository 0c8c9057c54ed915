// Local EVM chains for development and tests: two anvil nodes (source 31337, destination 31338) running
// detached so they outlive whoever started them, with TestUSDC, BurnerDelegate, SubscriptionManager, Uniswap V2 (seeded pools) and
// the CCTP V2-shaped bridge and StealthRelay deployed on each, the two bridges linked to each other.
// Addresses go to <root>/chains.json; a later call reuses running nodes and existing deployments.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import {
  type Address,
  type Chain,
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseAbiParameters,
  parseEther,
  toHex,
} from "viem";
import { privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { z } from "zod";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { type Artifacts, loadArtifacts } from "../../src/chains/evm/contracts.ts";
import { placeAnnouncer } from "./announcer.ts";
import { createBatch, type TxBatch } from "./batch.ts";
import { type LocalCctp, queueCctp, queueLink } from "./cctp.ts";
import { type LocalDex, loadUniswapArtifacts, queueDex, type UniswapArtifacts, verifyDex } from "./dex.ts";

export type LocalChainName = "source" | "destination";
export type DevAccount = { address: Address; privateKey: Hex };
export type LocalChain = {
  name: LocalChainName;
  chainId: number;
  rpcUrl: string;
  usdc: Address;
  delegate: Address;
  relayer: DevAccount;
  funded: DevAccount;
  /** Uniswap V2 with seeded DAI/USDC and WETH/USDC pools (absent when EVM_CHAINS names chains without it). */
  dex?: LocalDex;
  /** The CCTP V2-shaped bridge (absent when EVM_CHAINS names chains without it). */
  cctp?: LocalCctp;
  /** SubscriptionManager (absent when EVM_CHAINS names chains without it). */
  subscriptions?: Address;
  /** StealthRelay, the gasless withdrawal from stealth addresses (absent when EVM_CHAINS names chains without it). */
  stealthRelay?: Address;
};

/** A node to run: the stack's two (CHAIN_SPECS), or a caller's own (private-chains.ts). */
export type ChainSpec = { name: LocalChainName; chainId: number; port: number };

export const CHAIN_SPECS = [
  { name: "source", chainId: 31337, port: 18545 },
  { name: "destination", chainId: 31338, port: 18546 },
] as const satisfies readonly ChainSpec[];

// anvil's well-known dev mnemonic; pinned explicitly so the keys below stay valid whatever anvil's default is.
const DEV_MNEMONIC = "test test test test test test test test test test test junk";

function devAccount(privateKey: Hex): DevAccount {
  return { address: privateKeyToAddress(privateKey), privateKey };
}

/** anvil dev accounts #0..#3 of DEV_MNEMONIC: public test keys, never use them anywhere real. */
export const DEV_ACCOUNTS = {
  deployer: devAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
  relayer: devAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"),
  platformFeeRecipient: devAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"),
  funded: devAccount("0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6"),
  /** Signs CCTP messages as the local stand-in for Circle's attestation service (cctp-attester.ts). */
  attester: devAccount("0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"),
} as const;

/** CCTP domains of the local chains: local values, outside the range Circle has assigned so far. */
export const CCTP_DOMAINS: Record<LocalChainName, number> = { source: 100, destination: 101 };

/** BurnerDelegate's constructor, for the build id: a delegate is redeployed when any of its immutables change. */
const delegateConstructorParams = parseAbiParameters(
  "address, address, address, address, address, address, uint256[], uint32[]",
);
const subscriptionsParams = parseAbiParameters("address, address");
const stealthRelayParams = parseAbiParameters("address");

const USDC = 10n ** 6n;
/**
 * The USDC each test account keeps on every local chain: found under `floor`, the deployer mints it
 * back up to `target`, so a restart mints nothing while it holds enough and never mints without bound.
 */
const USDC_HOLDINGS = [
  // The payer of the demo and the tests.
  {
    account: DEV_ACCOUNTS.funded,
    role: "the funded account",
    floor: 1_000_000n * USDC,
    target: 10_000_000n * USDC,
  },
  // The relayer's inventory: what a fast fill pays an EVM destination out of (docs/SOLANA.md), so a
  // Solana deposit to an EVM destination settles on the local stack without an operator's top-up.
  {
    account: DEV_ACCOUNTS.relayer,
    role: "the relayer's fill inventory",
    floor: 10_000n * USDC,
    target: 100_000n * USDC,
  },
] as const;
const ETH_FLOOR = parseEther("1000");
const ETH_TOPUP = parseEther("10000");
const STATE_INTERVAL_SECONDS = 30;
const START_TIMEOUT_MS = 30_000;
const LOCK_TIMEOUT_MS = 180_000;

type Spec = ChainSpec;
export type DeploymentRecord = LocalChain & {
  usdcBuild: string;
  delegateBuild: string;
  dexBuild?: string;
  cctpBuild?: string;
  subscriptionsBuild?: string;
  stealthRelayBuild?: string;
};
export type ChainsFile = { version: 1; chains: Partial<Record<LocalChainName, DeploymentRecord>> };

const hexAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/) as unknown as z.ZodType<Address>;
const hexKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/) as unknown as z.ZodType<Hex>;
const devAccountSchema = z.object({ address: hexAddress, privateKey: hexKey });
const localChainSchema = z.object({
  name: z.enum(["source", "destination"]),
  chainId: z.number().int().positive(),
  rpcUrl: z.url(),
  usdc: hexAddress,
  delegate: hexAddress,
  relayer: devAccountSchema,
  funded: devAccountSchema,
  dex: z
    .object({
      factory: hexAddress,
      router: hexAddress,
      weth: hexAddress,
      dai: hexAddress,
      pairInitCodeHash: hexKey,
      pairs: z.object({ daiUsdc: hexAddress, wethUsdc: hexAddress }),
    })
    .optional(),
  cctp: z
    .object({
      domain: z.number().int().nonnegative(),
      messageTransmitter: hexAddress,
      tokenMessenger: hexAddress,
      attester: hexAddress,
    })
    .optional(),
  subscriptions: hexAddress.optional(),
  stealthRelay: hexAddress.optional(),
});

export function toViemChain(c: Pick<LocalChain, "name" | "chainId" | "rpcUrl">): Chain {
  return defineChain({
    id: c.chainId,
    name: `local-${c.name}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [c.rpcUrl] } },
  });
}

export async function ensureChains(opts: {
  root: string;
  log?: (l: string) => void;
}): Promise<{ chains: LocalChain[]; started: boolean }> {
  const log = opts.log ?? (() => {});
  const override = process.env.EVM_CHAINS;
  if (override) {
    const chains = z.array(localChainSchema).parse(JSON.parse(override)) as LocalChain[];
    log(`EVM_CHAINS set: using ${chains.map((c) => `${c.name}@${c.rpcUrl}`).join(", ")}, starting nothing`);
    return { chains, started: false };
  }

  const root = path.resolve(opts.root);
  await Promise.all(["anvil", "run", "logs"].map((d) => mkdir(path.join(root, d), { recursive: true })));
  // One caller at a time: parallel test workers would otherwise race to spawn and deploy.
  return withLock(path.join(root, "run/chains.lock"), async () => {
    const artifacts = loadArtifacts({ cacheDir: path.join(root, "cache/contracts"), log });
    const startedAny = await Promise.all(CHAIN_SPECS.map((spec) => ensureNode(root, spec, log)));
    const file = path.join(root, "chains.json");
    const previous = await readChainsFile(file);
    const records = await deployOn(CHAIN_SPECS, { artifacts, previous: previous.chains, log });
    const next: ChainsFile = { version: 1, chains: {} };
    for (const r of records) next.chains[r.name] = r;
    await writeAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
    const chains = records.map(withoutBuilds);
    return { chains, started: startedAny.some(Boolean) };
  });
}

/**
 * Deploys on running nodes of `specs` whatever `previous` does not already hold (every contract, on a
 * fresh node), links their bridges to each other and tops up the test accounts.
 */
export async function deployOn(
  specs: readonly ChainSpec[],
  opts: {
    artifacts: Promise<Artifacts>;
    previous?: ChainsFile["chains"];
    log: (l: string) => void;
  },
): Promise<DeploymentRecord[]> {
  const artifacts = await opts.artifacts;
  const uniswap = loadUniswapArtifacts();
  const records = await Promise.all(
    specs.map((spec) =>
      ensureDeployed(spec, specs, artifacts, uniswap, opts.previous?.[spec.name], opts.log),
    ),
  );
  await finishChains(specs, records, opts.log);
  return records;
}

/** A deployment as callers see it: the chain, without the build ids kept to decide a redeploy. */
export const withoutBuilds = ({
  usdcBuild: _u,
  delegateBuild: _d,
  dexBuild: _x,
  cctpBuild: _c,
  subscriptionsBuild: _s,
  stealthRelayBuild: _r,
  ...chain
}: DeploymentRecord): LocalChain => chain;

/** Stops anvil nodes recorded in <root>/run with SIGTERM, which makes anvil write its state file first. */
export async function stopChains(opts: { root: string; log?: (l: string) => void }): Promise<void> {
  const log = opts.log ?? (() => {});
  const root = path.resolve(opts.root);
  for (const spec of CHAIN_SPECS) {
    const pidFile = path.join(root, `run/anvil-${spec.name}.pid`);
    const pid = await readPid(pidFile);
    if (pid !== undefined && (await isOurAnvil(pid, spec.port))) {
      process.kill(pid, "SIGTERM");
      for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
      log(`stopped anvil ${spec.name} (pid ${pid})`);
    }
    await rm(pidFile, { force: true });
  }
}

// ---------------------------------------------------------------- nodes

export function anvilBin(): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN;
  const pkg = createRequire(import.meta.url).resolve("@foundry-rs/anvil-linux-amd64/package.json");
  return path.join(path.dirname(pkg), "bin/anvil");
}

async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await res.json()) as { result?: string };
    return body.result === undefined ? undefined : Number(body.result);
  } catch {
    return undefined;
  }
}

/** Makes sure an anvil answers on the spec's port; returns true when this call started it. */
async function ensureNode(root: string, spec: Spec, log: (l: string) => void): Promise<boolean> {
  const rpcUrl = rpcUrlOf(spec);
  const pidFile = path.join(root, `run/anvil-${spec.name}.pid`);

  const running = await rpcChainId(rpcUrl);
  if (running === spec.chainId) {
    log(`anvil ${spec.name}: reusing ${rpcUrl}`);
    return false;
  }
  if (running !== undefined) {
    throw new Error(`port ${spec.port} answers with chain id ${running}, expected ${spec.chainId}`);
  }

  // A recorded anvil that is alive but silent is either still booting or wedged: give it a moment, then replace.
  const oldPid = await readPid(pidFile);
  if (oldPid !== undefined && (await isOurAnvil(oldPid, spec.port))) {
    if (await waitForRpc(rpcUrl, spec.chainId, 10_000)) return false;
    log(`anvil ${spec.name}: pid ${oldPid} does not answer, killing it`);
    process.kill(oldPid, "SIGKILL");
  }

  const statePath = path.join(root, `anvil/${spec.name}.json`);
  const logPath = path.join(root, `logs/anvil-${spec.name}.log`);
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    const child = spawnAnvil(spec, { statePath, logPath, detached: true });
    await writeFile(pidFile, `${child.pid}\n`);
    let exited: number | null | undefined;
    child.once("exit", (code) => {
      exited = code;
    });
    const up = await waitForRpc(rpcUrl, spec.chainId, START_TIMEOUT_MS, () => exited !== undefined);
    child.removeAllListeners("exit");
    if (up) {
      log(`anvil ${spec.name}: started pid ${child.pid} on ${rpcUrl} in ${Date.now() - started} ms`);
      return true;
    }
    if (exited === undefined) child.kill("SIGKILL");
    // An unreadable state file (e.g. killed mid-dump) stops anvil at boot: set it aside once and start fresh.
    if (attempt === 0 && (await exists(statePath))) {
      const aside = `${statePath}.bad-${Date.now()}`;
      await rename(statePath, aside);
      log(`anvil ${spec.name}: failed to start with saved state, moved it to ${aside}, retrying fresh`);
      continue;
    }
    throw new Error(`anvil ${spec.name} did not come up on ${rpcUrl} (exit ${exited}); see ${logPath}`);
  }
}

/**
 * An anvil for `spec`, one block a second. The stack's nodes (`statePath`) keep their state across
 * restarts and run detached, outliving whoever started them; a private node has no state file and is
 * its caller's child.
 */
export function spawnAnvil(
  spec: Spec,
  opts: { statePath?: string; logPath?: string; detached: boolean },
): ChildProcess {
  const args = [
    ["--host", "127.0.0.1"],
    ["--port", String(spec.port)],
    ["--chain-id", String(spec.chainId)],
    ["--hardfork", "prague"], // EIP-7702 (type-4 transactions)
    ["--block-time", "1"], // blocks keep coming without transactions, so confirmation depth advances
    // anvil keeps the last 500 block states in memory and by default writes every older one to
    // ~/.foundry/anvil/tmp (~2.5 MB a block here, never removed after a kill): at one block a second
    // that filled this machine's disk. No reorg test goes back that far, so none go to disk.
    ["--max-persisted-states", "0"],
    ["--mnemonic", DEV_MNEMONIC],
    // --state loads the file if present and dumps on SIGTERM/SIGINT; the interval bounds loss on a hard kill
    ...(opts.statePath
      ? [
          ["--state", opts.statePath],
          ["--state-interval", String(STATE_INTERVAL_SECONDS)],
        ]
      : []),
  ].flat();
  const fd = opts.logPath === undefined ? "ignore" : openSync(opts.logPath, "a");
  try {
    const child = spawn(anvilBin(), args, { detached: opts.detached, stdio: ["ignore", fd, fd] });
    if (opts.detached) child.unref();
    return child;
  } finally {
    if (typeof fd === "number") closeSync(fd);
  }
}

export async function waitForRpc(
  rpcUrl: string,
  chainId: number,
  timeoutMs: number,
  giveUp: () => boolean = () => false,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !giveUp()) {
    if ((await rpcChainId(rpcUrl)) === chainId) return true;
    await sleep(100);
  }
  return false;
}

// ---------------------------------------------------------------- contracts

function buildId(bytecode: Hex): string {
  return keccak256(bytecode).slice(2, 18);
}

async function hasCode(client: PublicClient, address: Address): Promise<boolean> {
  const code = await client.getCode({ address });
  return code !== undefined && code !== "0x";
}

function connect(spec: Spec) {
  const rpcUrl = rpcUrlOf(spec);
  const chain = toViemChain({ name: spec.name, chainId: spec.chainId, rpcUrl });
  const transport = http(rpcUrl);
  const client = createPublicClient({ chain, transport, pollingInterval: 200 }) as PublicClient;
  const deployer = privateKeyToAccount(DEV_ACCOUNTS.deployer.privateKey);
  const wallet = createWalletClient({ chain, transport, account: deployer, pollingInterval: 200 });
  return { rpcUrl, chain, transport, client, wallet };
}

/**
 * Deploys whatever is missing or was built from different bytecode (all in one batch of back-to-back
 * transactions), then tops up the test accounts. A new USDC means a new DEX and bridge: they hold its address.
 */
async function ensureDeployed(
  spec: Spec,
  specs: readonly Spec[],
  artifacts: Artifacts,
  uniswap: UniswapArtifacts,
  previous: DeploymentRecord | undefined,
  log: (l: string) => void,
): Promise<DeploymentRecord> {
  const { rpcUrl, client, wallet } = connect(spec);
  const {
    TestUSDC,
    BurnerDelegate,
    TestERC20,
    MessageTransmitterV2,
    TokenMessengerV2,
    SubscriptionManager,
    StealthRelay,
  } = artifacts.contracts;
  const usdcBuild = buildId(TestUSDC.bytecode);

  const reusable = previous?.chainId === spec.chainId && previous.rpcUrl === rpcUrl ? previous : undefined;
  const keepUsdc = reusable?.usdcBuild === usdcBuild && (await hasCode(client, reusable.usdc));

  const batch = await createBatch(client, wallet);
  const deployed: string[] = [];
  const usdc =
    keepUsdc && reusable
      ? reusable.usdc
      : batch.deploy("TestUSDC", { ...TestUSDC, args: [batch.from], gas: 2_000_000n });
  if (!keepUsdc) deployed.push(`TestUSDC at ${usdc}`);

  const dexBuild = buildId(
    concat([
      uniswap.factory.bytecode,
      uniswap.router.bytecode,
      uniswap.weth.bytecode,
      TestERC20.bytecode,
      usdc,
    ]),
  );
  const keepDex =
    reusable?.dexBuild === dexBuild && reusable.dex && (await hasCode(client, reusable.dex.router));
  const deadline = (await client.getBlock()).timestamp + 3600n;
  const dex = keepDex && reusable?.dex ? reusable.dex : queueDex(batch, uniswap, TestERC20, usdc, deadline);
  if (!keepDex) deployed.push(`Uniswap V2 router at ${dex.router} (factory ${dex.factory}, DAI ${dex.dai})`);

  const domain = CCTP_DOMAINS[spec.name];
  const attester = DEV_ACCOUNTS.attester.address;
  const cctpBuild = buildId(
    concat([MessageTransmitterV2.bytecode, TokenMessengerV2.bytecode, usdc, attester, toHex(domain)]),
  );
  const keepCctp =
    reusable?.cctpBuild === cctpBuild &&
    reusable.cctp &&
    (await hasCode(client, reusable.cctp.tokenMessenger));
  const cctp =
    keepCctp && reusable?.cctp
      ? reusable.cctp
      : queueCctp(batch, artifacts.contracts, { domain, attester, usdc, feeRecipient: batch.from });
  if (!keepCctp) deployed.push(`CCTP domain ${domain}: TokenMessengerV2 at ${cctp.tokenMessenger}`);

  // Last: the delegate holds the addresses above in its code (immutables), and a route to every other chain.
  const routes = specs.filter((s) => s.name !== spec.name);
  const delegateArgs = [
    DEV_ACCOUNTS.relayer.address,
    DEV_ACCOUNTS.platformFeeRecipient.address,
    usdc,
    dex.weth,
    dex.router,
    cctp.tokenMessenger,
    routes.map((s) => BigInt(s.chainId)),
    routes.map((s) => CCTP_DOMAINS[s.name]),
  ] as const;
  const delegateBuild = buildId(
    concat([BurnerDelegate.bytecode, encodeAbiParameters(delegateConstructorParams, delegateArgs)]),
  );
  const keepDelegate =
    reusable?.delegateBuild === delegateBuild && (await hasCode(client, reusable.delegate));
  const delegate =
    keepDelegate && reusable
      ? reusable.delegate
      : batch.deploy("BurnerDelegate", { ...BurnerDelegate, args: delegateArgs, gas: 3_000_000n });
  if (!keepDelegate) deployed.push(`BurnerDelegate at ${delegate}`);

  // The subscriptions manager charges through the same relayer and pays the same platform fee recipient.
  const subscriptionsArgs = [
    DEV_ACCOUNTS.relayer.address,
    DEV_ACCOUNTS.platformFeeRecipient.address,
  ] as const;
  const subscriptionsBuild = buildId(
    concat([SubscriptionManager.bytecode, encodeAbiParameters(subscriptionsParams, subscriptionsArgs)]),
  );
  const keepSubscriptions =
    reusable?.subscriptionsBuild === subscriptionsBuild &&
    reusable.subscriptions !== undefined &&
    (await hasCode(client, reusable.subscriptions));
  const subscriptions =
    keepSubscriptions && reusable?.subscriptions
      ? reusable.subscriptions
      : batch.deploy("SubscriptionManager", {
          ...SubscriptionManager,
          args: subscriptionsArgs,
          gas: 2_000_000n,
        });
  if (!keepSubscriptions) deployed.push(`SubscriptionManager at ${subscriptions}`);

  // The stealth relay withdraws this chain's USDC only (its one immutable): a new USDC redeploys it.
  const stealthRelayBuild = buildId(
    concat([StealthRelay.bytecode, encodeAbiParameters(stealthRelayParams, [usdc])]),
  );
  const keepStealthRelay =
    reusable?.stealthRelayBuild === stealthRelayBuild &&
    reusable.stealthRelay !== undefined &&
    (await hasCode(client, reusable.stealthRelay));
  const stealthRelay =
    keepStealthRelay && reusable?.stealthRelay
      ? reusable.stealthRelay
      : batch.deploy("StealthRelay", { ...StealthRelay, args: [usdc], gas: 1_500_000n });
  if (!keepStealthRelay) deployed.push(`StealthRelay at ${stealthRelay}`);

  if (await placeAnnouncer(client, artifacts.contracts.ERC5564Announcer.deployedBytecode))
    deployed.push("ERC5564Announcer placed at its canonical address");
  const started = Date.now();
  const sent = await batch.settle();
  if (!keepDex) await verifyDex(client, dex, usdc, spec.name);
  if (sent > 0)
    log(`${spec.name}: ${sent} transactions in ${Date.now() - started} ms: ${deployed.join("; ")}`);

  return {
    name: spec.name,
    chainId: spec.chainId,
    rpcUrl,
    usdc,
    delegate,
    relayer: DEV_ACCOUNTS.relayer,
    funded: DEV_ACCOUNTS.funded,
    dex,
    cctp,
    subscriptions,
    stealthRelay,
    usdcBuild,
    delegateBuild,
    dexBuild,
    cctpBuild,
    subscriptionsBuild,
    stealthRelayBuild,
  };
}

/**
 * The last batch on each chain, once both are deployed: points its TokenMessengerV2 at the other chain's
 * (messenger and USDC) where it is not already, and tops up the test accounts.
 */
async function finishChains(
  specs: readonly Spec[],
  records: DeploymentRecord[],
  log: (l: string) => void,
): Promise<void> {
  await Promise.all(
    records.map(async (local) => {
      const spec = specs.find((s) => s.name === local.name);
      if (!spec) return;
      const { client, wallet, chain, transport } = connect(spec);
      const batch: TxBatch = await createBatch(client, wallet);
      for (const remote of records) {
        if (remote === local || !remote.cctp || !local.cctp) continue;
        await queueLink(
          client,
          batch,
          { cctp: local.cctp, usdc: local.usdc },
          { cctp: remote.cctp, usdc: remote.usdc },
        );
      }
      await topUp(
        client,
        createTestClient({ chain, transport, mode: "anvil" }),
        batch,
        local.usdc,
        log,
        spec.name,
      );
      const sent = await batch.settle();
      if (sent > 0) log(`${local.name}: bridge linked and accounts topped up (${sent} transactions)`);
    }),
  );
}

async function topUp(
  client: PublicClient,
  test: ReturnType<typeof createTestClient>,
  batch: TxBatch,
  usdc: Address,
  log: (l: string) => void,
  name: string,
): Promise<void> {
  for (const acct of [DEV_ACCOUNTS.relayer, DEV_ACCOUNTS.funded]) {
    if ((await client.getBalance({ address: acct.address })) < ETH_FLOOR) {
      await test.setBalance({ address: acct.address, value: ETH_TOPUP });
      log(`${name}: topped up ETH of ${acct.address}`);
    }
  }
  for (const { account, role, floor, target } of USDC_HOLDINGS) {
    const balance = await client.readContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [account.address],
    });
    if (balance >= floor) continue;
    batch.call(`mint USDC to ${role}`, {
      address: usdc,
      abi: testUsdcAbi,
      functionName: "mint",
      args: [account.address, target - balance],
      gas: 100_000n,
    });
    log(`${name}: minting ${(target - balance) / USDC} USDC to ${role} ${account.address}`);
  }
}

// ---------------------------------------------------------------- files and processes

function rpcUrlOf(spec: Spec): string {
  return `http://127.0.0.1:${spec.port}`;
}

async function readChainsFile(file: string): Promise<ChainsFile> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as ChainsFile;
    if (parsed.version === 1) return parsed;
  } catch {
    // missing or unreadable: everything gets deployed afresh
  }
  return { version: 1, chains: {} };
}

async function writeAtomic(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, content);
  await rename(tmp, file);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

async function readPid(file: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(file, "utf8").catch(() => ""), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Guards against signalling a recycled pid: the process must be an anvil on this port. */
async function isOurAnvil(pid: number, port: number): Promise<boolean> {
  if (!isAlive(pid)) return false;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  const args = cmdline.split("\0");
  return (args[0] ?? "").endsWith("anvil") && args.includes(String(port));
}

async function withLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  for (;;) {
    try {
      const fh = await open(file, "wx");
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = await readPid(file);
    // An empty lock file is a holder between open and write, unless it has been empty for a while.
    const stale =
      holder === undefined
        ? Date.now() -
            (await stat(file).then(
              (s) => s.mtimeMs,
              () => 0,
            )) >
          5_000
        : !isAlive(holder);
    if (stale) {
      await rm(file, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file} (held by pid ${holder})`);
    await sleep(200);
  }
  try {
    return await fn();
  } finally {
    await rm(file, { force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
