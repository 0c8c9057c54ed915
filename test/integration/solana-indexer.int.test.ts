// The Solana indexer on the stack's local Solana node, Cassandra and Kafka: SPL USDC and SOL deposits
// to a burner found once each at `confirmed`, then published again as finalized; and an indexer
// killed with SIGKILL between publishing a deposit and its checkpoint publishes it again after the
// restart, which the session decider counts once.
import { randomBytes, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { getOrCreateAssociatedTokenAccount, transfer } from "@solana/spl-token";
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalSolana } from "../../deploy/local/solana/launcher.ts";
import { createChainAdapters } from "../../src/chains/adapters.ts";
import { parseChainList } from "../../src/chains/config.ts";
import { SOL_TOKEN, SOLANA_LOCAL_CHAIN_ID } from "../../src/chains/solana/config.ts";
import type { SessionInput } from "../../src/domain/commands.ts";
import { decide } from "../../src/domain/decide.ts";
import type { SessionEvent } from "../../src/domain/events.ts";
import { evolve } from "../../src/domain/evolve.ts";
import type { Session, SessionState } from "../../src/domain/types.ts";
import { transferCommand } from "../../src/entities/session.ts";
import { createKafka } from "../../src/kafka/client.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import { ensureTopics, stableEndOffsets } from "../../src/kafka/topics.ts";
import type { TransferObserved } from "../../src/records/chain-transfers.ts";
import { type CassandraClient, connectCassandra } from "../../src/store/cassandra.ts";
import { type Child, startChild } from "../support/child-process.ts";
import { codecs } from "../support/codecs.ts";
import { keypairOf } from "../support/solana-node.ts";

// The servers the environment names, else the local stack's (what with-stack started for this run).
const settings = {
  contactPoints: [] as string[],
  localDataCenter: "datacenter1",
  keyspace: `sol_idx_${randomBytes(4).toString("hex")}`,
};
let brokers: string[] = [];

let node: LocalSolana;
let connection: Connection;
let payer: Keypair;
let mint: PublicKey;
let cassandra: CassandraClient;
let chainJson: string;

beforeAll(async () => {
  const stack = JSON.parse(await readFile(".local/stack.json", "utf8")) as {
    solana: LocalSolana;
    kafka: { brokers: string[] };
    cassandra: { contactPoints: string[] };
  };
  node = stack.solana;
  brokers = process.env.KAFKA_BROKERS?.split(",") ?? stack.kafka.brokers;
  settings.contactPoints = process.env.CASSANDRA_CONTACT_POINTS?.split(",") ?? stack.cassandra.contactPoints;
  connection = new Connection(node.rpcUrl, "confirmed");
  payer = keypairOf(node.testKey);
  mint = new PublicKey(node.usdcMint);
  cassandra = await connectCassandra(settings, { migrate: true });
  chainJson = JSON.stringify([
    {
      family: "solana",
      name: "solana-local",
      chainId: SOLANA_LOCAL_CHAIN_ID,
      rpcUrl: node.rpcUrl,
      wsUrl: node.wsUrl,
      usdcMint: node.usdcMint,
      relayer: node.relayerKey.secretKey,
    },
  ]);
}, 60_000);

afterAll(async () => {
  await cassandra?.execute(`DROP KEYSPACE IF EXISTS ${settings.keyspace}`);
  await cassandra?.shutdown();
});

const USDC_AMOUNT = 2_500_000n; // 2.5 USDC
const LAMPORTS = 12_345_678n;

async function sendUsdc(to: PublicKey, amount: bigint): Promise<string> {
  const from = await getOrCreateAssociatedTokenAccount(connection, payer, mint, payer.publicKey);
  const ata = await getOrCreateAssociatedTokenAccount(connection, payer, mint, to);
  return transfer(connection, payer, from.address, ata.address, payer, amount);
}

const sendSol = (to: PublicKey, lamports: bigint): Promise<string> =>
  sendAndConfirmTransaction(
    connection,
    new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports })),
    [payer],
    { commitment: "confirmed" },
  );

async function waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** What the session actor makes of the records, in order: the events decided and the final state. */
function fold(sessionId: string, burner: string, records: readonly TransferObserved[]) {
  let state: SessionState = null;
  const events: SessionEvent[] = [];
  const apply = (command: SessionInput) => {
    const decision = decide(command, state);
    if (!decision.ok) throw new Error(`refused ${decision.rejection.code}`);
    for (const e of decision.events) {
      events.push(e);
      state = evolve(state, e);
    }
  };
  apply({
    type: "CreateSession",
    data: {
      sessionId,
      flow: "p2p_request",
      merchantId: null,
      pinnedOnly: false,
      burner,
      auth: null,
      destAddress: burner,
      destChainId: SOLANA_LOCAL_CHAIN_ID,
      appFeeBps: 0,
      appFeeRecipient: "0x0000000000000000000000000000000000000000",
      standingRefund: null,
      stealth: null,
      stealthDestinations: null,
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
      expectedAmount: null,
      pinnedDestinations: [],
      clientSecretHash: null,
      originChainId: SOLANA_LOCAL_CHAIN_ID,
      appFeeRecipientSol: null,
      refundAddress: null,
    },
    metadata: { commandId: `create:${sessionId}`, issuedAt: Date.now(), replyTo: null },
  });
  for (const r of records) apply(transferCommand(r));
  return { events: events.map((e) => e.type), state: state as Session | null };
}

describe("Solana indexer on the local node", () => {
  it("finds an SPL USDC and a SOL deposit to a burner once each at confirmed, then publishes them as finalized", async () => {
    const [adapter] = createChainAdapters(parseChain());
    const published: TransferObserved[] = [];
    const controller = new AbortController();
    const indexer = adapter?.createIndexer({
      cassandra,
      publish: async (records) => {
        published.push(...records);
      },
      log: () => {},
      signal: controller.signal,
      pollMs: 100,
    });
    if (!indexer) throw new Error("no indexer");
    const running = indexer.run();
    try {
      await waitFor(() => indexer.status().lastBlock !== null, "a first checkpoint");
      const burner = Keypair.generate().publicKey;
      const sessionId = randomUUID();
      expect((await indexer.watch([{ burner: burner.toBase58(), sessionId }]))[0]?.outcome).toBe("added");
      // An EVM burner is none of this chain's: not watched.
      expect(await indexer.watch([{ burner: `0x${"ab".repeat(20)}`, sessionId }])).toEqual([]);

      const usdcTx = await sendUsdc(burner, USDC_AMOUNT);
      const solTx = await sendSol(burner, LAMPORTS);
      const usdcSlot = BigInt(
        (
          await connection.getTransaction(usdcTx, {
            commitment: "confirmed",
            maxSupportedTransactionVersion: 0,
          })
        )?.slot ?? -1,
      );
      const solSlot = BigInt(
        (
          await connection.getTransaction(solTx, {
            commitment: "confirmed",
            maxSupportedTransactionVersion: 0,
          })
        )?.slot ?? -1,
      );

      await waitFor(
        () => published.filter((r) => r.finality === "confirmed").length >= 2,
        "two confirmed records",
      );
      await waitFor(
        () => published.filter((r) => r.finality === "finalized").length >= 2,
        "two finalized records",
      );
      await sleep(1000); // and nothing more comes

      const confirmed = published.filter((r) => r.finality === "confirmed");
      const finalized = published.filter((r) => r.finality === "finalized");
      expect(published).toHaveLength(4);
      const usdc = confirmed.find((r) => r.token === node.usdcMint);
      const sol = confirmed.find((r) => r.token === SOL_TOKEN);
      expect(usdc).toMatchObject({
        sessionId,
        burner: burner.toBase58(),
        chainId: SOLANA_LOCAL_CHAIN_ID,
        amount: USDC_AMOUNT,
        txHash: usdcTx,
        blockNumber: usdcSlot,
        from: payer.publicKey.toBase58(),
        retracted: false,
        terms: { accepted: true, minAmount: 10_000n },
      });
      expect(usdc?.logIndex).toBeGreaterThanOrEqual(0);
      expect(sol).toMatchObject({
        amount: LAMPORTS,
        txHash: solTx,
        blockNumber: solSlot,
        logIndex: -1,
        from: payer.publicKey.toBase58(),
      });
      // The finalized copies are the same transfers, in the same slots.
      for (const c of [usdc, sol]) {
        const f = finalized.find((r) => r.txHash === c?.txHash);
        expect(f).toMatchObject({ ...c, finality: "finalized", observedAt: f?.observedAt });
        expect(f?.observedAt).toBeGreaterThanOrEqual(c?.observedAt ?? 0);
      }
      // The finalized slot had passed both when they were published again.
      expect(BigInt(await connection.getSlot("finalized"))).toBeGreaterThanOrEqual(
        usdcSlot > solSlot ? usdcSlot : solSlot,
      );
      for (const r of published)
        expect(codecs.transferObserved.decode(codecs.transferObserved.encode(r))).toStrictEqual(r);

      // The session: detected by the confirmed records, both awaiting finality, then both final.
      const afterConfirmed = fold(sessionId, burner.toBase58(), confirmed);
      expect(afterConfirmed.state?.status).toBe("detected");
      expect(afterConfirmed.state?.awaitingFinality).toHaveLength(2);
      const all = fold(sessionId, burner.toBase58(), published);
      expect(all.events.filter((e) => e === "DepositObserved")).toHaveLength(2);
      expect(all.events.filter((e) => e === "DepositFinalized")).toHaveLength(2);
      expect(all.state?.deposits.map((d) => d.amount).sort()).toEqual([USDC_AMOUNT, LAMPORTS].sort());
      expect(all.state?.awaitingFinality).toEqual([]);
    } finally {
      controller.abort();
      await running;
    }
  }, 45_000);

  it("publishes a deposit again after a SIGKILL between its publish and its checkpoint; the session counts it once", async () => {
    // Its own chain id: a fresh checkpoint, apart from the test above.
    const chainId = SOLANA_LOCAL_CHAIN_ID + 1000 + Math.floor(Math.random() * 1000);
    const chain = JSON.stringify([{ ...JSON.parse(chainJson)[0], chainId }]);
    const topic = `solana-ix-${randomBytes(4).toString("hex")}`;
    const kafka = createKafka({ brokers, clientId: "solana-ix-test" });
    await ensureTopics(kafka, [
      { name: topic, partitions: 1, cleanupPolicy: "delete", retentionMs: 3_600_000 },
    ]);
    const burner = Keypair.generate().publicKey;
    const sessionId = randomUUID();
    const lines: string[] = [];
    const start = (hold: boolean): Promise<Child> =>
      startChild("solana-indexer", ["test/support/solana-indexer-child.ts"], {
        env: {
          CHAIN_JSON: chain,
          CASSANDRA_CONTACT_POINTS: settings.contactPoints.join(","),
          TEST_KEYSPACE: settings.keyspace,
          KAFKA_BROKERS: brokers.join(","),
          TOPIC: topic,
          BURNER: burner.toBase58(),
          SESSION_ID: sessionId,
          HOLD_AFTER_PUBLISH: hold ? "1" : "",
        },
        ready: /^ready (\d+)/,
        timeoutMs: 30_000,
        onLine: (l) => lines.push(l),
      });
    const checkpoint = async (): Promise<bigint | null> => {
      const row = (
        await cassandra.execute(
          "SELECT block_number FROM indexer_checkpoints WHERE chain_id = ?",
          [chainId],
          {
            prepare: true,
          },
        )
      ).first();
      return row?.block_number == null ? null : BigInt(String(row.block_number));
    };
    const readAll = async (): Promise<TransferObserved[]> => {
      const out: TransferObserved[] = [];
      await readTopic(kafka, {
        topic,
        from: new Map([[0, 0n]]),
        onBatch: (records) => {
          for (const r of records) out.push(codecs.transferObserved.decode(r.value ?? Buffer.alloc(0)));
        },
      });
      return out;
    };

    const first = await start(true);
    let second: Child | undefined;
    try {
      const tx = await sendUsdc(burner, USDC_AMOUNT);
      const slot = BigInt(
        (await connection.getTransaction(tx, { commitment: "confirmed", maxSupportedTransactionVersion: 0 }))
          ?.slot ?? -1,
      );
      await waitFor(() => lines.some((l) => l.startsWith("published 1 confirmed")), "the first publish");
      process.kill(first.pid, "SIGKILL");
      await waitFor(() => first.exited() !== null, "the kill");
      expect(first.exited()).toBe("SIGKILL");
      // Killed on Kafka and before its checkpoint: the checkpoint is below the deposit's slot.
      expect((await checkpoint()) ?? -1n).toBeLessThan(slot);
      const beforeRestart = await readAll();
      expect(beforeRestart.map((r) => [r.txHash, r.finality])).toEqual([[tx, "confirmed"]]);

      second = await start(false);
      await waitFor(() => lines.some((l) => l.startsWith("published 1 finalized")), "the finalized publish");
      for (let i = 0; i < 100 && ((await checkpoint()) ?? -1n) < slot; i++) await sleep(100);
      expect((await checkpoint()) ?? -1n).toBeGreaterThanOrEqual(slot);
      const records = await readAll();
      // Re-delivered: the very record published before the kill, then its finalized copy.
      expect(records.filter((r) => r.finality === "confirmed")).toEqual([beforeRestart[0], beforeRestart[0]]);
      expect(records.filter((r) => r.finality === "finalized")).toHaveLength(1);
      expect(records.every((r) => r.txHash === tx && r.amount === USDC_AMOUNT)).toBe(true);

      const session = fold(sessionId, burner.toBase58(), records);
      expect(session.events).toEqual(["SessionCreated", "DepositObserved", "DepositFinalized"]);
      expect(session.state?.deposits).toHaveLength(1);
      expect(session.state?.deposits[0]?.amount).toBe(USDC_AMOUNT);
      expect(session.state?.awaitingFinality).toEqual([]);
      expect(await stableEndOffsets(kafka, topic)).toEqual(new Map([[0, BigInt(records.length)]]));
    } finally {
      if (first.exited() === null) process.kill(first.pid, "SIGKILL");
      await second?.stop();
    }
  }, 60_000);
});

function parseChain() {
  const parsed = parseChainList(JSON.parse(chainJson));
  if (!parsed.ok) throw new Error(parsed.issues.join("; "));
  return parsed.chains;
}
