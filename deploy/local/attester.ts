// The local CCTP attester (cctp-attester.ts) as a process of the stack: started detached after the chains,
// like anvil, so it outlives whoever started it; its URL goes to the stack file for the executor
// (ATTESTATION_API_URL's default). It is restarted when the bridge it attests for was redeployed.
import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { attesterChainsFromStack } from "./cctp-attester.ts";
import type { LocalChain } from "./chains.ts";
import { isAlive, sleep, startScriptServer } from "./processes.ts";

export const ATTESTER_PORT = 18547;
const START_TIMEOUT_MS = 30_000;
const SCRIPT = fileURLToPath(new URL("./cctp-attester.ts", import.meta.url));

const files = (root: string) => ({
  pid: path.join(root, "run", "attester.pid"),
  /** What the running attester was started with: reused only when the bridge is the same. */
  config: path.join(root, "run", "attester.config"),
  log: path.join(root, "logs", "attester.log"),
});

/** Answers like the attester: an unknown domain is its 400 with `{ error }`. */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/v2/messages/4294967295?transactionHash=0x${"0".repeat(64)}`, {
      signal: AbortSignal.timeout(1000),
    });
    return res.status === 400 && "error" in ((await res.json()) as object);
  } catch {
    return false;
  }
}

async function readPid(file: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(file, "utf8").catch(() => ""), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Our attester's pid, if the recorded one is alive and runs this script (not a recycled pid). */
async function ourPid(root: string): Promise<number | undefined> {
  const pid = await readPid(files(root).pid);
  if (pid === undefined || !isAlive(pid)) return undefined;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  return cmdline.includes("cctp-attester.ts") ? pid : undefined;
}

export async function ensureAttester(opts: {
  root: string;
  chains: LocalChain[];
  log: (line: string) => void;
}): Promise<{ url: string; started: boolean }> {
  const url = `http://127.0.0.1:${ATTESTER_PORT}`;
  const chains = JSON.stringify(attesterChainsFromStack({ chains: opts.chains }));
  const config = createHash("sha256").update(chains).digest("hex");
  const f = files(opts.root);
  const running = await ourPid(opts.root);
  if (running !== undefined) {
    if ((await readFile(f.config, "utf8").catch(() => "")) === config && (await answers(url))) {
      opts.log(`attester: reusing ${url}`);
      return { url, started: false };
    }
    opts.log(`attester: pid ${running} serves another bridge or does not answer, restarting it`);
    await stopAttester(opts.root);
  }
  if (await answers(url))
    throw new Error(`port ${ATTESTER_PORT} is taken by an attester this stack did not start`);
  await startScriptServer({
    name: `attester on ${url}`,
    script: SCRIPT,
    env: { ATTESTER_CHAINS: chains, ATTESTER_PORT: String(ATTESTER_PORT) },
    files: f,
    config,
    answers: () => answers(url),
    timeoutMs: START_TIMEOUT_MS,
  });
  opts.log(`attester: started on ${url}`);
  return { url, started: true };
}

export async function stopAttester(root: string, log: (line: string) => void = () => {}): Promise<void> {
  const pid = await ourPid(root);
  if (pid !== undefined) {
    process.kill(pid, "SIGTERM");
    for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
    log(`stopped attester (pid ${pid})`);
  }
  await rm(files(root).pid, { force: true });
}
