// Compiles src/contracts/*.sol with the solc npm package and caches the result under
// .local/cache/contracts/<hash>.json, keyed by everything that can change the output.
// Run directly (`npx tsx src/chains/evm/contracts.ts`) to regenerate src/chains/evm/abi.ts.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Abi, Hex } from "viem";

const require = createRequire(import.meta.url);

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SOURCES_DIR = path.join(REPO_ROOT, "src/contracts");
const ABI_MODULE = path.join(REPO_ROOT, "src/chains/evm/abi.ts");
const OZ_PREFIX = "@openzeppelin/contracts/";

export const CONTRACT_NAMES = [
  "BurnerDelegate",
  "TestUSDC",
  "TestERC20",
  "MessageTransmitterV2",
  "TokenMessengerV2",
  "SubscriptionManager",
  "StealthRelay",
  "ERC5564Announcer",
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

export type Artifact = { abi: Abi; bytecode: Hex; deployedBytecode: Hex };
export type Artifacts = {
  /** Hash of sources, compiler version, settings and OpenZeppelin version: changes iff the output may. */
  hash: string;
  solcVersion: string;
  contracts: Record<ContractName, Artifact>;
};

// prague pins the opcode set to what anvil --hardfork prague runs (newer solc defaults may be ahead of it).
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "prague",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
} as const;

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
};

function ozRoot(): string {
  return path.dirname(require.resolve("@openzeppelin/contracts/package.json"));
}

function solcVersion(): string {
  return (require("solc/package.json") as { version: string }).version;
}

async function readSources(): Promise<Record<string, { content: string }>> {
  const entries = await Promise.all(
    CONTRACT_NAMES.map(async (name) => {
      const file = `${name}.sol`;
      return [file, { content: await readFile(path.join(SOURCES_DIR, file), "utf8") }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

function cacheKey(sources: Record<string, { content: string }>): string {
  const ozVersion = (require("@openzeppelin/contracts/package.json") as { version: string }).version;
  const h = createHash("sha256");
  h.update(JSON.stringify({ solc: solcVersion(), oz: ozVersion, settings: SETTINGS }));
  for (const [file, { content }] of Object.entries(sources).sort(([a], [b]) => a.localeCompare(b))) {
    h.update(`\0${file}\0${content}`);
  }
  return h.digest("hex").slice(0, 16);
}

function findImport(importPath: string): { contents: string } | { error: string } {
  if (!importPath.startsWith(OZ_PREFIX)) return { error: `unresolvable import ${importPath}` };
  const file = path.join(ozRoot(), importPath.slice(OZ_PREFIX.length));
  try {
    return { contents: readFileSync(file, "utf8") };
  } catch (err) {
    return { error: `cannot read ${file}: ${(err as Error).message}` };
  }
}

async function compile(
  sources: Record<string, { content: string }>,
  log: (l: string) => void,
): Promise<Artifacts["contracts"]> {
  // Loaded lazily: the solc module is a large emscripten build and a cache hit never needs it.
  const solc = (await import("solc")).default;
  const input = { language: "Solidity", sources, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const problems = output.errors ?? [];
  const errors = problems.filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  for (const w of problems) log(`solc ${w.severity}: ${w.formattedMessage}`);

  const pick = (name: ContractName): Artifact => {
    const out = output.contracts?.[`${name}.sol`]?.[name];
    if (!out) throw new Error(`solc produced no output for ${name}`);
    return {
      abi: out.abi,
      bytecode: `0x${out.evm.bytecode.object}`,
      deployedBytecode: `0x${out.evm.deployedBytecode.object}`,
    };
  };
  return Object.fromEntries(CONTRACT_NAMES.map((name) => [name, pick(name)])) as Artifacts["contracts"];
}

/** Compiled artifacts, from the cache when the sources are unchanged, otherwise compiled and cached. */
export async function loadArtifacts(
  opts: { cacheDir?: string; log?: (l: string) => void } = {},
): Promise<Artifacts> {
  const log = opts.log ?? (() => {});
  const cacheDir = opts.cacheDir ?? path.join(REPO_ROOT, ".local/cache/contracts");
  const sources = await readSources();
  const hash = cacheKey(sources);
  const file = path.join(cacheDir, `${hash}.json`);
  try {
    return JSON.parse(await readFile(file, "utf8")) as Artifacts;
  } catch {
    // cache miss (or unreadable entry): compile below
  }
  const started = Date.now();
  const artifacts: Artifacts = { hash, solcVersion: solcVersion(), contracts: await compile(sources, log) };
  log(
    `compiled ${CONTRACT_NAMES.join(", ")} with solc ${artifacts.solcVersion} in ${Date.now() - started} ms`,
  );
  await mkdir(cacheDir, { recursive: true });
  // rename is atomic, so a concurrent reader never sees a half-written entry
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(artifacts));
  await rename(tmp, file);
  return artifacts;
}

/** TypeScript source of abi.ts: each ABI as an `as const` literal so viem infers argument and return types. */
export function renderAbiModule(artifacts: Artifacts): string {
  const lines = [
    "// Generated from the solc output by `npx tsx src/chains/evm/contracts.ts`; do not edit.\n" +
      "// test/integration/contracts.int.test.ts fails when this file and the compiler output disagree.",
  ];
  for (const name of CONTRACT_NAMES) {
    lines.push(
      `export const ${abiExportName(name)} = ${JSON.stringify(artifacts.contracts[name].abi)} as const;`,
    );
  }
  return `${lines.join("\n\n")}\n`;
}

/** BurnerDelegate -> burnerDelegateAbi, TestUSDC -> testUsdcAbi, TokenMessengerV2 -> tokenMessengerV2Abi */
export function abiExportName(name: ContractName): string {
  const words = name.match(/[A-Z][a-z]+\d*|[A-Z]+\d*(?![a-z])/g) ?? [name];
  return `${words.map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0) + w.slice(1).toLowerCase())).join("")}Abi`;
}

export async function writeAbiModule(artifacts: Artifacts): Promise<string> {
  await writeFile(ABI_MODULE, renderAbiModule(artifacts));
  // keep the generated file in the repo's formatting so `biome check` stays clean
  const biome = path.join(REPO_ROOT, "node_modules/.bin/biome");
  const res = spawnSync(biome, ["format", "--write", ABI_MODULE], { stdio: "inherit" });
  if (res.status !== 0) throw new Error(`biome format failed on ${ABI_MODULE}`);
  return ABI_MODULE;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const artifacts = await loadArtifacts({ log: console.log });
  console.log(`wrote ${await writeAbiModule(artifacts)} (artifacts ${artifacts.hash})`);
}
