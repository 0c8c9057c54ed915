/**
 * The gateway's signature checks per POST /sessions, with viem's JavaScript recovery and with the
 * native libsecp256k1 binding, side by side in one run: rounds alternate between the two so both see
 * the same machine. Each check is the whole check (viem's hashing, the recovery, the comparison);
 * "of which viem's hashing" is the hashing alone, the floor under both. CPU time is printed next to
 * wall time because on a busy machine it is the steadier of the two. Prints figures; asserts nothing.
 *
 *   npx tsx test/bench/signatures.bench.ts [rounds=3] [ms=1000]
 */
import type { Hex } from "viem";
import { hashAuthorization, hashTypedData } from "viem/utils";
import { evmSignatureChecks } from "../../src/chains/evm/typed-data/authorization.ts";
import { standingRefundTypedData } from "../../src/chains/evm/typed-data/eip712.ts";
import { nativeRecover, type RecoverSigner, viemRecover } from "../../src/chains/evm/typed-data/recover.ts";
import { newBurner } from "../../src/client/burner.ts";
import type { Address, Authorization, StandingRefund } from "../../src/domain/types.ts";
import { median } from "./workload.ts";

const ROUNDS = Number(process.argv[2] ?? 3);
const MIN_MS = Number(process.argv[3] ?? 1_000);
const BURNERS = 200; // distinct signatures, so no cache of any kind can answer from a previous call
const DELEGATE: Address = "0x1111111111111111111111111111111111111111";
const CHAIN = { chainId: 31337, delegate: DELEGATE };
const CHAINS = [CHAIN];
const NOW = 1_800_000_000;

if (nativeRecover === null) {
  console.log("the native secp256k1 binding did not load here: nothing to compare");
  process.exit(1);
}

interface Vector {
  burner: Address;
  auth: Authorization;
  refund: StandingRefund;
}

const vectors: Vector[] = await Promise.all(
  Array.from({ length: BURNERS }, async (): Promise<Vector> => {
    const burner = await newBurner(CHAIN);
    const to = DELEGATE;
    const deadline = NOW + 3600;
    const typed = standingRefundTypedData(31337, burner.address, { to, deadline: BigInt(deadline) });
    const signature: Hex = await burner.account.signTypedData(typed);
    return {
      burner: burner.address,
      auth: burner.eip7702Auth,
      refund: { to, deadline, signatures: { "31337": signature } },
    };
  }),
);

/** µs per call of wall clock and of CPU (all threads of this process). */
type Cost = { wall: number; cpu: number };

/** The cost of one call, over at least MIN_MS of calls across every vector. */
async function measure(run: (v: Vector) => Promise<unknown> | unknown): Promise<Cost> {
  for (const v of vectors) await run(v); // warm-up: JIT, and viem's lazy import of noble-curves
  let calls = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < MIN_MS) {
    for (const v of vectors) await run(v);
    calls += vectors.length;
  }
  const wall = ((performance.now() - start) * 1000) / calls;
  const used = process.cpuUsage(cpu0);
  return { wall, cpu: (used.user + used.system) / calls };
}

const failures = (ok: boolean) => {
  if (!ok) throw new Error("a check refused a valid vector: the figures would measure the wrong path");
};
const authorizationCheck = (recover: RecoverSigner) => {
  const checks = evmSignatureChecks(CHAINS, recover);
  return async (v: Vector) => failures((await checks.authorization(v.auth, v.burner)).ok);
};
const refundCheck = (recover: RecoverSigner) => {
  const checks = evmSignatureChecks(CHAINS, recover);
  return async (v: Vector) => failures((await checks.standingRefund(v.refund, v.burner, NOW)).ok);
};

const cases = [
  {
    name: "authorization (EIP-7702)",
    hash: (v: Vector) => hashAuthorization({ address: v.auth.address, chainId: v.auth.chainId, nonce: 0 }),
    viem: authorizationCheck(viemRecover),
    native: authorizationCheck(nativeRecover),
  },
  {
    name: "standing refund (EIP-712, 1 chain)",
    hash: (v: Vector) =>
      hashTypedData(
        standingRefundTypedData(31337, v.burner, { to: v.refund.to, deadline: BigInt(v.refund.deadline) }),
      ),
    viem: refundCheck(viemRecover),
    native: refundCheck(nativeRecover),
  },
];

const cell = (n: number, width = 12) => n.toFixed(1).padStart(width);

/** One line: wall and CPU µs per check for both, and how many times cheaper native is in CPU. */
function line(label: string, viem: Cost, native: Cost): void {
  console.log(
    `${label.padEnd(48)}${cell(viem.wall)}${cell(native.wall)}${cell(viem.cpu)}${cell(native.cpu)}` +
      `${`${(viem.cpu / native.cpu).toFixed(1)}x`.padStart(8)}`,
  );
}

console.log(
  `node ${process.version}, ${process.arch}; ${BURNERS} burners, ${ROUNDS} rounds of >= ${MIN_MS} ms`,
);
console.log(
  `${"µs per check".padEnd(48)}${"viem wall".padStart(12)}${"native wall".padStart(12)}` +
    `${"viem cpu".padStart(12)}${"native cpu".padStart(12)}${"cpu".padStart(8)}`,
);
for (const c of cases) {
  const viem: Cost[] = [];
  const native: Cost[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const v = await measure(c.viem);
    const n = await measure(c.native);
    viem.push(v);
    native.push(n);
    line(`  ${c.name}, round ${round + 1}`, v, n);
  }
  const mid = (xs: Cost[]): Cost => ({
    wall: median(xs.map((x) => x.wall)),
    cpu: median(xs.map((x) => x.cpu)),
  });
  line(`${c.name}, median`, mid(viem), mid(native));
  const hashOnly = await measure(c.hash);
  console.log(`${"  of which viem's hashing".padEnd(48)}${cell(hashOnly.wall, 24)}${cell(hashOnly.cpu, 24)}`);
}
