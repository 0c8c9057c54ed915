// The Solana node as a process of the local stack, like the attester: started detached so it outlives
// whoever started it, pid in run/solana.pid, output in logs/solana.log, chain in <root>/solana/. A test
// passes its own root and port to run a private node.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getBase58Decoder } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import { isAlive, sleep } from "../processes.ts";
import { ensurePool } from "./pool.ts";
import { ensureVault } from "./vault.ts";

export const SOLANA_PORT = 18899;
const START_TIMEOUT_MS = 30_000;
const SCRIPT = fileURLToPath(new URL("./server.ts", import.meta.url));

/** The stack file's `solana` entry. Keys are base58 64-byte secret keys (local keys only). */
export interface LocalSolana {
  rpcUrl: string;
  wsUrl: string;
  usdcMint: string;
  usdcDecimals: number;
  testKey: { publicKey: string; secretKey: string };
  relayerKey: { publicKey: string; secretKey: string };
  mintAuthorityKey: { publicKey: string; secretKey: string };
  /** The service's vault (deploy/local/solana/vault.ts): made and funded on first start. */
  vaultKey: { publicKey: string; secretKey: string };
  /** The SOL/USDC pool our local Jupiter prices from (pool.ts): its SOL is this key's lamports. */
  pool: { key: { publicKey: string; secretKey: string }; usdcAccount: string };
  slotMs: number;
  finalityLagSlots: number;
}

const files = (root: string) => ({
  pid: path.join(root, "run", "solana.pid"),
  log: path.join(root, "logs", "solana.log"),
  dir: path.join(root, "solana"),
});

async function rpc<T>(url: string, method: string): Promise<T | undefined> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method }),
      signal: AbortSignal.timeout(1000),
    });
    return ((await res.json()) as { result?: T }).result;
  } catch {
    return undefined;
  }
}

async function ourPid(root: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(files(root).pid, "utf8").catch(() => ""), 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  // By file name, not full path: a worktree and the main checkout share the stack.
  return cmdline.includes("solana/server.ts") ? pid : undefined;
}

const b58 = getBase58Decoder();

async function readKeys(dir: string) {
  const saved = JSON.parse(await readFile(path.join(dir, "genesis.json"), "utf8")) as Record<
    string,
    number[]
  >;
  const key = (name: string) => {
    const pair = Keypair.fromSecretKey(Uint8Array.from(saved[name] ?? []));
    return { publicKey: pair.publicKey.toBase58(), secretKey: b58.decode(pair.secretKey) };
  };
  return {
    usdcMint: key("usdcMint").publicKey,
    test: key("test"),
    relayer: key("relayer"),
    mintAuthority: key("mintAuthority"),
  };
}

export async function ensureSolana(opts: {
  root: string;
  port?: number;
  slotMs?: number;
  finalityLag?: number;
  log?: (line: string) => void;
}): Promise<LocalSolana & { started: boolean }> {
  const log = opts.log ?? (() => {});
  const port = opts.port ?? SOLANA_PORT;
  const slotMs = opts.slotMs ?? 400;
  const finalityLag = opts.finalityLag ?? 8;
  const rpcUrl = `http://127.0.0.1:${port}`;
  const f = files(opts.root);
  let started = false;
  const running = await ourPid(opts.root);
  const genesisHash = await rpc<string>(rpcUrl, "getGenesisHash");
  if (running !== undefined && genesisHash) log(`solana: reusing ${rpcUrl}`);
  else {
    if (genesisHash) throw new Error(`port ${port} is taken by a Solana node this stack did not start`);
    if (running !== undefined) await stopSolana(opts.root, log);
    for (const d of [path.dirname(f.pid), path.dirname(f.log), f.dir]) mkdirSync(d, { recursive: true });
    const fd = openSync(f.log, "a");
    let pid: number | undefined;
    try {
      const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
        detached: true,
        stdio: ["ignore", fd, fd],
        env: {
          ...process.env,
          SOLANA_DIR: f.dir,
          SOLANA_PORT: String(port),
          SOLANA_SLOT_MS: String(slotMs),
          SOLANA_FINALITY_LAG: String(finalityLag),
        },
      });
      child.unref();
      pid = child.pid;
      await writeFile(f.pid, `${child.pid}\n`);
    } finally {
      closeSync(fd);
    }
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await rpc<string>(rpcUrl, "getGenesisHash"))) {
      if (Date.now() > deadline) throw new Error(`solana node did not come up on ${rpcUrl}; see ${f.log}`);
      // A node that could not listen (the port taken since it was chosen) has exited: say so now.
      if (pid === undefined || !isAlive(pid))
        throw new SolanaExitedError(`solana node exited before answering on ${rpcUrl}; see ${f.log}`);
      await sleep(100);
    }
    started = true;
    log(`solana: started on ${rpcUrl}`);
  }
  const keys = await readKeys(f.dir);
  const [vault, pool] = await Promise.all([
    ensureVault({ rpcUrl, dir: f.dir, usdcMint: keys.usdcMint }),
    ensurePool({ rpcUrl, dir: f.dir, usdcMint: keys.usdcMint }),
  ]);
  return {
    rpcUrl,
    wsUrl: `ws://127.0.0.1:${port + 1}`,
    usdcMint: keys.usdcMint,
    usdcDecimals: 6,
    testKey: keys.test,
    relayerKey: keys.relayer,
    mintAuthorityKey: keys.mintAuthority,
    vaultKey: { publicKey: vault.publicKey.toBase58(), secretKey: b58.decode(vault.secretKey) },
    pool: {
      key: { publicKey: pool.key.publicKey.toBase58(), secretKey: b58.decode(pool.key.secretKey) },
      usdcAccount: pool.usdcAccount.toBase58(),
    },
    slotMs,
    finalityLagSlots: finalityLag,
    started,
  };
}

/** SIGTERM (the node writes its state and exits), SIGKILL after 10 s. */
export async function stopSolana(root: string, log: (line: string) => void = () => {}): Promise<void> {
  const pid = await ourPid(root);
  if (pid !== undefined) {
    process.kill(pid, "SIGTERM");
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
    if (isAlive(pid)) process.kill(pid, "SIGKILL");
    log(`stopped solana node (pid ${pid})`);
  }
  await rm(files(root).pid, { force: true });
}

/** The node's process ended before it answered: nothing is left running on its root. */
export class SolanaExitedError extends Error {
  override name = "SolanaExitedError";
}
