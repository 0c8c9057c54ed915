import type { SessionCommand } from "../../src/domain/commands.ts";
import type { SessionEvent } from "../../src/domain/events.ts";
import {
  type Address,
  type Authorization,
  type Commitment,
  type DepositTerms,
  FINALITIES,
  FLOWS,
  type Hex,
  type Intent,
  type Outcome,
  type RefundRecord,
  type Session,
  STATUSES,
  type StandingRefund,
  type StealthAnnouncement,
  type Transfer,
  UNSUPPORTED_REASONS,
} from "../../src/domain/types.ts";
import { sessionView } from "../../src/domain/view.ts";
import type { TransferObserved } from "../../src/records/chain-transfers.ts";
import type { GatewayReply } from "../../src/records/gateway-replies.ts";
import type { SessionStateRecord } from "../../src/records/session-state.ts";

/**
 * Seeded generators of every record type, for property-style tests: the same seed gives the same
 * values, so a failure names a seed that reproduces it. Values reach the edges the codecs must keep
 * (uint256 amounts, -1 log index, null vs present, empty maps, unicode text).
 */
export interface Gen {
  int(min: number, max: number): number;
  bool(): boolean;
  pick<T>(items: readonly T[]): T;
  maybe<T>(make: () => T): T | null;
  hex(bytes: number): Hex;
  address(): Address;
  uuid(): string;
  text(): string;
  amount(): bigint;
  transfer(): Transfer;
  authorization(): Authorization;
  intent(): Intent;
  standingRefund(): StandingRefund;
  stealth(): StealthAnnouncement;
  /** A SessionCreated event's data. */
  creation(): Extract<SessionEvent, { type: "SessionCreated" }>["data"];
  command(): SessionCommand;
  event(): SessionEvent;
  session(): Session;
  sessionState(): SessionStateRecord;
  transferObserved(): TransferObserved;
  gatewayReply(): GatewayReply;
}

export function generator(seed: number): Gen {
  // mulberry32: small, fast, good enough for test data.
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const bool = () => next() < 0.5;
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  const maybe = <T>(make: () => T): T | null => (bool() ? make() : null);
  const chainBalance = () => ({ balance: amount(), dustFloor: amount() });
  const gasRecord = () => ({
    chainId: chainId(),
    txHash: hex(32),
    commandId: uuid(),
    gasUsed: amount(),
    feeWei: amount(),
    cost: maybe(amount),
  });
  const hexDigits = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[int(0, 15)]).join("");
  const hex = (bytes: number): Hex => `0x${hexDigits(bytes * 2)}`;
  const address = (): Address => (int(0, 9) === 0 ? "0x0000000000000000000000000000000000000000" : hex(20));
  const uuid = () =>
    `${hexDigits(8)}-${hexDigits(4)}-4${hexDigits(3)}-${pick(["8", "9", "a", "b"])}${hexDigits(3)}-${hexDigits(12)}`;
  const text = () =>
    pick(["", "rpc timeout", "execution reverted: ERC20: insufficient", "défaut ✓ 東京", uuid()]);
  const amount = (): bigint => {
    switch (int(0, 3)) {
      case 0:
        return 0n;
      case 1:
        return BigInt(int(1, 1_000_000_000));
      case 2:
        return 2n ** 256n - 1n;
      default:
        return BigInt(`0x${hexDigits(int(1, 64))}`);
    }
  };
  const chainId = () => pick([1, 8453, 42161, 31337, 11297108109]);
  const ms = () => int(1_600_000_000_000, 1_900_000_000_000);
  const secs = () => int(1_600_000_000, 1_900_000_000);

  const transfer = (): Transfer => ({
    chainId: chainId(),
    token: address(),
    amount: amount(),
    txHash: hex(32),
    logIndex: int(-1, 500),
    blockNumber: BigInt(int(0, 2 ** 40)),
    blockHash: hex(32),
    from: address(),
  });
  const terms = (): DepositTerms => ({ accepted: bool(), minAmount: amount() });
  const finality = () => pick(FINALITIES);
  const authorization = (): Authorization => ({
    address: address(),
    chainId: pick([0, 1, 8453]),
    nonce: int(0, 2 ** 31),
    r: hex(32),
    s: hex(32),
    yParity: int(0, 1),
  });
  const standingRefund = (): StandingRefund => ({
    to: address(),
    deadline: secs(),
    signatures: Object.fromEntries(Array.from({ length: int(0, 3) }, () => [String(chainId()), hex(65)])),
  });
  const stealth = (): StealthAnnouncement => ({ ephemeralPubkey: hex(33), viewTag: int(0, 255) });
  const pins = () =>
    Array.from({ length: int(0, 2) }, () => ({
      sourceChainId: chainId(),
      destAddress: address(),
      destChainId: chainId(),
    }));
  const SOL_ADDRESS = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
  const creation = () => ({
    flow: pick(FLOWS),
    merchantId: maybe(uuid),
    burner: maybe(address),
    auth: maybe(authorization),
    destAddress: maybe(() => pick([address(), "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"])),
    destChainId: maybe(chainId),
    appFeeBps: int(0, 10_000),
    appFeeRecipient: address(),
    standingRefund: maybe(standingRefund),
    stealth: maybe(stealth),
    expiresAt: secs(),
    expectedAmount: maybe(amount),
    pinnedDestinations: pins(),
    clientSecretHash: maybe(() => hexDigits(64)),
    originChainId: maybe(chainId),
    appFeeRecipientSol: maybe(() => "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"),
    refundAddress: maybe(() => SOL_ADDRESS),
    stealthDestinations: maybe(() =>
      Array.from({ length: int(1, 2) }, () => ({
        scheme: pick(["erc5564-1", "solana-ed25519-1"]),
        ephemeralPubkey: hex(33),
        viewTag: int(0, 255),
        stealthAddress: address(),
      })),
    ),
  });
  const intent = (): Intent => ({
    destChainId: chainId(),
    destAddr: address(),
    minOut: amount(),
    deadline: secs(),
    salt: hex(32),
    inToken: address(),
    maxIn: amount(),
    appFeeBps: int(0, 10_000),
    appFeeRecipient: address(),
  });
  const commitment = (): Commitment => ({
    intent: intent(),
    signature: hex(65),
    sourceChainId: chainId(),
    feeBps: int(0, 100),
  });
  const refundRecord = (): RefundRecord => ({
    id: uuid(),
    kind: pick(["refund", "refund_all", "bounce", "solana_refund"] as const),
    chainId: chainId(),
    token: address(),
    to: address(),
    amount: maybe(amount),
    depositsCovered: maybe(() => int(0, 5)),
    txHash: maybe(() => hex(32)),
    status: pick(["requested", "submitted", "confirmed", "failed"] as const),
    errorMessage: maybe(text),
  });
  const SOL_KEY = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
  const solanaLegs = () => Array.from({ length: int(1, 3) }, () => ({ to: SOL_KEY, amount: amount() }));
  const solanaSweep = () => ({
    transaction: Buffer.from(hexDigits(64), "hex").toString("base64"),
    token: "So11111111111111111111111111111111111111112",
    legs: solanaLegs(),
    feeBps: int(0, 100),
    amountIn: amount(),
    feeAmount: amount(),
    appFeeAmount: amount(),
    deliveredAmount: amount(),
    bridged: bool(),
  });
  const command = (): SessionCommand => {
    const sessionId = uuid();
    const metadata = {
      commandId: uuid(),
      issuedAt: ms(),
      replyTo: maybe(() => ({ gatewayId: `gw-${int(0, 9)}`, correlationId: uuid() })),
    };
    switch (int(0, 10)) {
      case 10:
        return {
          type: "RequestSolanaRefund",
          data: {
            sessionId,
            transaction: "AQID",
            signature:
              "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
            burner: SOL_KEY,
            token: pick(["So11111111111111111111111111111111111111112", SOL_KEY]),
            to: SOL_KEY,
            amount: amount(),
          },
          metadata,
        };
      case 9: {
        const { transaction, token, legs, feeBps } = solanaSweep();
        const data = { sessionId, transaction, burner: SOL_KEY, token, legs, feeBps, feeRecipient: SOL_KEY };
        return { type: "CommitSolanaSweep", data: { ...data, vault: SOL_KEY }, metadata };
      }
      case 4:
        return {
          type: "CommitIntent",
          data: {
            sessionId,
            ...commitment(),
            burner: maybe(address),
            auth: maybe(authorization),
            merchantPins: maybe(pins),
          },
          metadata,
        };
      case 5:
        return {
          type: "AttachStandingRefund",
          data: { sessionId, standingRefund: standingRefund() },
          metadata,
        };
      case 6: {
        const r = { chainId: chainId(), token: address(), to: address(), amount: amount(), deadline: secs() };
        return {
          type: "RequestRefund",
          data: { sessionId, ...r, salt: hex(32), signature: hex(65), onChain: maybe(chainBalance) },
          metadata,
        };
      }
      case 8:
        return {
          type: "RegisterBurner",
          data: {
            sessionId,
            burner: address(),
            auth: maybe(authorization),
            standingRefund: maybe(standingRefund),
            bounceSetup: maybe(() => ({ refundTo: SOL_ADDRESS, transaction: "AQID" })),
          },
          metadata,
        };
      case 7:
        return {
          type: "RequestRefundAll",
          data: { sessionId, chainId: chainId(), token: address(), onChain: maybe(chainBalance) },
          metadata,
        };
      case 0:
        return { type: "CreateSession", data: { sessionId, ...creation(), pinnedOnly: bool() }, metadata };
      case 1:
        return {
          type: "RecordTransfer",
          data: { sessionId, transfer: transfer(), terms: maybe(terms), finality: maybe(finality) },
          metadata,
        };
      case 2: {
        const t = transfer();
        const data = {
          sessionId,
          chainId: t.chainId,
          txHash: t.txHash,
          logIndex: t.logIndex,
          blockHash: t.blockHash,
        };
        return { type: "RetractTransfer", data, metadata };
      }
      default:
        return { type: "ExpireSession", data: { sessionId, now: secs() }, metadata };
    }
  };
  const event = (): SessionEvent => {
    const metadata = { sessionId: uuid(), version: int(1, 10_000), occurredAt: ms(), commandId: uuid() };
    switch (int(0, 19)) {
      case 19:
        return {
          type: "StealthAnnounceFailed",
          data: {
            scheme: pick(["erc5564-1", "solana-ed25519-1"]),
            chainId: chainId(),
            errorMessage: pick(["no ERC-5564 announcer at this address", "gave up after 5 tries: timeout"]),
          },
          metadata,
        };
      case 18:
        return {
          type: "StealthAnnounced",
          data: { scheme: pick(["erc5564-1", "solana-ed25519-1"]), chainId: chainId(), txHash: hex(32) },
          metadata,
        };
      case 16:
        return { type: "SolanaSweepCommitted", data: solanaSweep(), metadata };
      case 17:
        return {
          type: "BounceSetupAttached",
          data: { refundTo: SOL_ADDRESS, transaction: "AQID" },
          metadata,
        };
      case 15:
        return { type: "RelayerGasSpent", data: gasRecord(), metadata };
      case 4:
        return { type: "IntentCommitted", data: commitment(), metadata };
      case 5:
        return { type: "SweepSubmitted", data: { txHash: hex(32) }, metadata };
      case 6: {
        const [amountIn, swapOutputAmount, feeAmount] = [amount(), amount(), amount()];
        const outcome = pick<Outcome>(["succeeded", "overpaid", "underpaid"]);
        const data = { txHash: hex(32), amountIn, swapOutputAmount, feeAmount, appFeeAmount: amount() };
        return {
          type: "SweepCompleted",
          data: { ...data, deliveredAmount: amount(), bridged: bool(), outcome },
          metadata,
        };
      }
      case 7:
        return { type: "BridgeCompleted", data: { txHash: hex(32), mintedAmount: amount() }, metadata };
      case 8:
        return { type: "SettlementRetried", data: { errorMessage: text() }, metadata };
      case 9:
        return { type: "SettlementFailed", data: { errorMessage: text() }, metadata };
      case 10:
        return { type: "StandingRefundAttached", data: { standingRefund: standingRefund() }, metadata };
      case 11: {
        const { id, kind, chainId, token, to, amount, depositsCovered } = refundRecord();
        return {
          type: "RefundRequested",
          data: { id, kind, chainId, token, to, amount, depositsCovered },
          metadata,
        };
      }
      case 13:
        return {
          type: "BurnerRegistered",
          data: { burner: address(), auth: maybe(authorization) },
          metadata,
        };
      case 14:
        return {
          type: "UnsupportedDepositObserved",
          data: { transfer: transfer(), reason: pick(UNSUPPORTED_REASONS) },
          metadata,
        };
      case 12: {
        const { id, txHash, errorMessage } = refundRecord();
        const status = pick(["submitted", "confirmed", "failed"] as const);
        return { type: "RefundUpdated", data: { id, status, txHash, errorMessage }, metadata };
      }
      case 0:
        return { type: "SessionCreated", data: creation(), metadata };
      case 1:
        return {
          type: "DepositObserved",
          data: { transfer: transfer(), finality: maybe(finality) },
          metadata,
        };
      case 2: {
        const t = transfer();
        return {
          type: "DepositRetracted",
          data: { chainId: t.chainId, txHash: t.txHash, logIndex: t.logIndex },
          metadata,
        };
      }
      default:
        return { type: "SessionExpired", data: {}, metadata };
    }
  };
  const session = (): Session => {
    const createdAt = ms();
    const c = creation();
    return {
      id: uuid(),
      version: int(1, 500),
      createdAt,
      updatedAt: createdAt + int(0, 10_000_000),
      ...c,
      stealthDestinations: c.stealthDestinations ?? [],
      stealthAnnounced: [],
      stealthAnnounceFailed: [],
      status: pick(STATUSES),
      outcome: maybe(() => pick<Outcome>(["succeeded", "overpaid", "underpaid"])),
      deposits: Array.from({ length: int(0, 3) }, transfer),
      unsupportedDeposits: Array.from({ length: int(0, 2) }, () => ({
        ...transfer(),
        reason: pick(UNSUPPORTED_REASONS),
      })),
      awaitingFinality: Array.from({ length: int(0, 1) }, () => {
        const { chainId, txHash, logIndex } = transfer();
        return { chainId, txHash, logIndex };
      }),
      sweepTx: maybe(() => hex(32)),
      swapOutputAmount: maybe(amount),
      feeAmount: maybe(amount),
      bridgeAmount: maybe(amount),
      bridgeTx: maybe(() => hex(32)),
      destTx: maybe(() =>
        pick([
          hex(32),
          "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
        ]),
      ),
      retryCount: int(0, 5),
      errorMessage: maybe(text),
      commitment: maybe(commitment),
      solanaSweep: maybe(solanaSweep),
      appFeeAmount: maybe(amount),
      settledAmount: maybe(amount),
      refunds: Array.from({ length: int(0, 2) }, refundRecord),
      bounceTo: maybe(() => SOL_ADDRESS),
      bounceSetup: maybe(() => "AQIDBA=="),
      gasSpent: Array.from({ length: int(0, 2) }, gasRecord),
      recentCommandIds: [uuid()],
    };
  };
  const sessionState = (): SessionStateRecord => {
    const s = session();
    return { version: s.version, session: sessionView(s) };
  };
  const transferObserved = (): TransferObserved => ({
    sessionId: uuid(),
    burner: address(),
    ...transfer(),
    confirmations: int(0, 64),
    observedAt: ms(),
    retracted: bool(),
    terms: maybe(terms),
    finality: maybe(finality),
  });
  const gatewayReply = (): GatewayReply => {
    const ok = bool();
    return {
      gatewayId: `gw-${int(0, 9)}`,
      correlationId: uuid(),
      status: ok ? 200 : pick([404, 409]),
      code: ok ? null : pick(["session_exists", "wrong_status"]),
      message: ok ? null : text(),
      session: maybe(sessionState),
    };
  };
  return {
    int,
    bool,
    pick,
    maybe,
    hex,
    address,
    uuid,
    text,
    amount,
    transfer,
    authorization,
    intent,
    standingRefund,
    stealth,
    creation,
    command,
    event,
    session,
    sessionState,
    transferObserved,
    gatewayReply,
  };
}
