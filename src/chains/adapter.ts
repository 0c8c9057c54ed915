import type { SubscriptionCommand } from "../domain/subscription/types.ts";
import type {
  Address,
  Authorization,
  BlockId,
  ChainAddress,
  Hex,
  Intent,
  Transfer,
  TxId,
} from "../domain/types.ts";
import type { TransferObserved } from "../records/chain-transfers.ts";
import type { ExecutorCommand } from "../records/executor-commands.ts";
import type { ExecutorResult } from "../records/executor-results.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import type { ExecutorLedger } from "../store/executor-ledger.ts";
import type { Pacer } from "../support/pacer.ts";
import type { ChainConfig, ChainFamily } from "./config.ts";
import type { SignatureProblemCode } from "./signature-problems.ts";

/**
 * What the service needs from a chain, whatever its family. One implementation per family
 * (src/chains/evm/ first); the roles, the gateway and /health reach a chain only through this, so a
 * family is added with its adapter and its config schema, without touching the domain, the roles or
 * the routes (docs/DESIGN.md, "Chain adapters").
 */
export interface ChainAdapter {
  readonly family: ChainFamily;
  readonly chain: ChainConfig;
  /**
   * The canonical spelling of an address of this family (EVM: lower-case 0x hex; Solana: base58,
   * case kept), or null when `raw` is not one. The domain stores addresses as plain strings; this is
   * where they are validated.
   */
  parseAddress(raw: string): ChainAddress | null;
  /** The chain's indexer: a block source and a transfer finder, publishing TransferObserved. */
  createIndexer(deps: ChainIndexerDeps): ChainIndexer;
  /** The account that pays fees on this chain; null when none is configured (a read-only role). */
  readonly relayer: ChainAddress | null;
  /**
   * Every address of the service on this chain (the relayer, a vault, a fee payer): never a
   * watched burner, never a refund's recipient (src/chains/service-addresses.ts).
   */
  readonly serviceAddresses: readonly ChainAddress[];
  /** How the chain is followed, in a few words, for the indexer's start line. */
  readonly summary: string;
  /** The least the relayer must hold (wei, lamports) for /health to pass. */
  readonly minRelayerBalance: bigint;
  /** The relayer's balance in the chain's smallest unit, for /health; one try, no retries (the caller bounds its time). */
  relayerBalance(): Promise<bigint>;
  /** Settlement's side of the chain (src/chains/<family>/ carries out its commands); needs the relayer's key. */
  createExecutor(deps: ChainExecutorDeps): ChainExecutor;
  /** The gateway's side of the chain: one-try reads and signature checks on a request path. */
  readonly gateway: GatewayChain;
  /**
   * Mirrors the chain's on-chain subscription cancels to subscription.commands (the indexer role,
   * docs/SUBSCRIPTIONS.md); null where the chain has no subscription manager.
   */
  readonly subscriptionWatcher: ((deps: SubscriptionWatcherDeps) => { run(): Promise<void> }) | null;
}

export interface SubscriptionWatcherDeps {
  cassandra: CassandraClient;
  /** Sends the cancels to subscription.commands; resolves once they are durable. */
  send: (commands: SubscriptionCommand[]) => Promise<void>;
  pollMs: number;
  signal: AbortSignal;
  log: (msg: string, fields?: object) => void;
}

// ---------------------------------------------------------------------------------------------------
// The gateway's side (src/chains/gateway-chains.ts picks the chain by id)

/**
 * What a request path asks of one chain. Reads try once with a short timeout (a client's request
 * must not wait out retries) and reject with ChainUnavailableError when the RPC does not answer:
 * the gateway answers 502 having changed nothing. Signature checks are local: no RPC, no clock.
 */
export interface GatewayChain {
  /**
   * The contract a burner delegates to on this chain (EIP-7702 on EVM), which a burner's
   * authorization must name; null where the family's burners delegate nothing.
   */
  readonly burnerDelegate: ChainAddress | null;
  /** The chain's USDC (EVM: the ERC-20; Solana: the mint), when configured. */
  readonly usdc: ChainAddress | null;
  /**
   * The balance `address` holds of `token` (default the native coin), in base units; null when
   * `token` is not a token of this chain (nothing to tell). Also the proof that the RPC answers.
   */
  balance(address: ChainAddress, token?: ChainAddress): Promise<bigint | null>;
  /**
   * The USDC `amountIn` of `token` swaps to, over the route settlement swaps with: `usdc` when the
   * token is the chain's USDC (nothing is swapped), `no_route` when no pool prices it.
   */
  quote(token: ChainAddress, amountIn: bigint): Promise<Quote>;
  /**
   * The tokens a payer may pay in here (the operator's accepted tokens), USDC first, each with the
   * symbol and decimals a page shows; a token the RPC cannot describe now is left out, never an error.
   */
  payTokens(): Promise<PayToken[]>;
  /**
   * What `gas` costs at the chain's price now, in base units of `token` (the native coin's smallest
   * unit for the native coin); null when nothing prices the token.
   */
  gasValue(token: ChainAddress, gas: bigint): Promise<bigint | null>;
  /**
   * Whether `signer` signed `signed` for this chain, in the family's scheme (EVM: EIP-712 under a
   * domain that binds the chain and the burner, EIP-7702 for the authorization); never throws.
   */
  verify(signer: ChainAddress, signed: SignedMessage): Promise<Verdict>;
  /** Why signature checks run degraded (slower, still correct), for the gateway to log once; null when they do not. */
  readonly verifierWarning: { message: string; err: Error } | null;
  /** The chain's subscription manager (docs/SUBSCRIPTIONS.md); null where the chain has none. */
  readonly subscriptions: GatewaySubscriptions | null;
}

/** A payer's subscription mandate as signed (the manager's struct, field for field). */
export interface MandateTerms {
  payer: Address;
  token: Address;
  amount: bigint;
  /** seconds */
  period: bigint;
  /** unix seconds: period 0 starts here, period i at start + i * period */
  start: bigint;
  merchant: Address;
  appFeeBps: number;
  appFeeRecipient: Address;
  salt: Hex;
}

/** What the subscription routes check on the chain a mandate is for; local, no RPC. */
export interface GatewaySubscriptions {
  /** The contract mandates are signed for and charged through. */
  readonly manager: ChainAddress;
  /** The mandate's identity on chain (EVM: its EIP-712 digest under the manager's domain). */
  mandateDigest(mandate: MandateTerms): Hex;
  /** Whether `mandate.payer` signed the mandate for this manager; never throws. */
  mandateSigned(mandate: MandateTerms, signature: string): Promise<boolean>;
  /** Whether `payer` signed the gasless cancel of the mandate `digest` under `manager`; never throws. */
  cancelSigned(payer: ChainAddress, manager: ChainAddress, digest: Hex, signature: string): Promise<boolean>;
}

/** A token a payer may pay in, as a page names it. */
export interface PayToken {
  /** EVM: the ERC-20 or NATIVE_TOKEN for the coin; Solana: the mint. */
  token: ChainAddress;
  symbol: string;
  decimals: number;
}

export type Quote = { kind: "quote"; estimatedOut: bigint } | { kind: "usdc" } | { kind: "no_route" };

/** What a burner signs, in the records' spelling; the family hashes it its own way. */
export type SignedMessage =
  /** The burner's delegation to `burnerDelegate`; its signature is inside (r, s, yParity). */
  | { kind: "authorization"; authorization: Authorization }
  /** The sweep the burner allows: destination, floor, fees (one signature per source chain). */
  | { kind: "intent"; intent: Intent; signature: string }
  /** Where the burner's balance goes when the session fails, until the deadline (unix seconds). */
  | { kind: "standing_refund"; to: ChainAddress; deadline: number; signature: string }
  /** One refund of `amount` of `token` to `to`; `salt` makes it single-use. */
  | { kind: "refund"; refund: RefundTerms; signature: string };

export interface RefundTerms {
  token: ChainAddress;
  to: ChainAddress;
  amount: bigint;
  /** unix seconds */
  deadline: bigint;
  salt: Hex;
}

/** A check's answer: the problem code and, when there is more to say, what exactly failed. */
export type Verdict = { ok: true } | { ok: false; code: SignatureProblemCode; detail?: string };

// ---------------------------------------------------------------------------------------------------
// Indexing

/** A block (EVM) or slot (Solana) by height and hash. */
export interface BlockRef {
  number: bigint;
  hash: BlockId;
}

/** What the indexer needs of every block a source hands out; a family's block adds what its finder needs. */
export interface ChainBlock extends BlockRef {
  /** unix seconds, by the chain's clock (freshness) */
  timestamp: bigint;
}

/**
 * Blocks a source and the indexer's checkpoint remember, to find a common ancestor after a reorg;
 * a deeper reorg stops the indexer for an operator (the source's too-deep error is terminal).
 */
export const REMEMBERED_BLOCKS = 256;

/**
 * Chain input as a discriminated union, so a reorg is a case the compiler makes the indexer handle.
 * `B` is the family's block: what its transfer finder needs from it.
 */
export type ChainInput<B extends BlockRef> = BlockInput<B> | ReorgInput;

/** A block handed out, with the chain head then: its depth is head - number, never below the confirmations. */
export type BlockInput<B extends BlockRef> = B & { kind: "block"; head: bigint };

export interface ReorgInput {
  kind: "reorg";
  /** The newest handed-out block still canonical; the next block input is its child. */
  commonAncestor: BlockRef;
  /** Handed-out blocks that are no longer canonical, oldest first. */
  dropped: BlockRef[];
}

/**
 * Follows a chain at a confirmation depth: blocks in order, each linked to the one before. A source
 * is opened on the blocks already handed out (the checkpoint's memory) and resumes after them.
 */
export interface BlockSource<B extends BlockRef> {
  /** One step: `[]` when nothing new is confirmed, `[reorg]`, or a run of consecutive blocks. */
  next(): Promise<Array<ChainInput<B>>>;
  /** The remembered blocks, oldest first (what a restart resumes from). */
  recent(): BlockRef[];
}

/** A transfer into a watched address. */
export interface FoundTransfer extends Transfer {
  to: ChainAddress;
}

/** Finds transfers into watched addresses. */
export interface TransferFinder<B extends BlockRef> {
  /** In a run of consecutive blocks just handed out by the block source. */
  inBlocks(blocks: readonly B[], isWatched: (address: ChainAddress) => boolean): Promise<FoundTransfer[]>;
  /**
   * In blocks `from..to`, already handed out, for newly watched addresses (a backfill); a transfer
   * from a block whose hash is not `expectedHash(number)` belongs to another branch and is left out.
   */
  toAddresses(args: {
    addresses: ReadonlySet<ChainAddress>;
    from: bigint;
    to: bigint;
    expectedHash: (number: bigint) => string | undefined;
  }): Promise<FoundTransfer[]>;
}

/**
 * added: newly watched. already_watched: the same session registered it before (the backfill runs
 * again, harmlessly, so a retried add after a crash completes it). conflict: another session owns it.
 */
export type WatchOutcome = "added" | "already_watched" | "conflict";

export interface ChainIndexerDeps {
  cassandra: CassandraClient;
  /** Resolves once the records are durably on chain.transfers, in order. */
  publish: (records: TransferObserved[]) => Promise<void>;
  log: (msg: string, fields?: object) => void;
  signal: AbortSignal;
  pollMs?: number;
}

export interface ChainIndexer {
  /** Watches burners for their sessions, backfilling recent blocks once for the whole batch. */
  watch(
    burners: ReadonlyArray<{ burner: string; sessionId: string }>,
  ): Promise<Array<{ outcome: WatchOutcome; burner: ChainAddress; owner: string }>>;
  /** Follows the chain until the signal aborts; rejects only on a terminal error. */
  run(): Promise<void>;
  status(): { chainId: number; lastBlock: bigint | null; lastBlockAt: number | null };
}

// ---------------------------------------------------------------------------------------------------
// Settlement: the executor's side of a chain (docs/EXECUTOR.md)

type CommandOf<T extends ExecutorCommand["command"]["type"]> = Extract<
  ExecutorCommand["command"],
  { type: T }
>;
export type SettleCommand = CommandOf<"Settle">;
export type RefundCommand = CommandOf<"Refund">;
export type RefundAllCommand = CommandOf<"RefundAll">;
export type ChargeSubscriptionCommand = CommandOf<"ChargeSubscription">;
export type CancelMandateCommand = CommandOf<"CancelMandate">;
export type RelaySolanaSweepCommand = CommandOf<"RelaySolanaSweep">;
export type SolanaBounceSetupCommand = CommandOf<"SolanaBounceSetup">;
export type SolanaBounceCommand = CommandOf<"SolanaBounce">;
export type RelaySolanaRefundCommand = CommandOf<"RelaySolanaRefund">;
export type AnnounceCommand = CommandOf<"Announce">;

/** A transaction id as executor.results carries it (hex, as every family's records spell it there). */
export type TxHash = `0x${string}`;

/** One try of one step of a command: the ledger key, whether to bump fees, and where broadcasts are told. */
export interface StepTry {
  /** "<commandId>/<step>": a step has at most one live transaction, found again after a crash. */
  key: string;
  /** The previous try found the transaction stuck: replace it at its nonce with higher fees. */
  bump: boolean;
  /** Told each transaction hash put on the wire (first, replacements, re-sends after a restart). */
  onSubmitted: (txHash: TxId) => Promise<void>;
}

type ResultOf<T extends ExecutorResult["result"]["type"]> = Omit<
  Extract<ExecutorResult["result"], { type: T }>,
  "type"
>;

/** An EVM transaction's hash where results carry any family's id (a Solana signature is base58). */
type OnEvm<T> = Omit<T, "txHash"> & { txHash: TxHash };

/** A mined transaction whose effect was checked. */
export type Mined = OnEvm<ResultOf<"TransactionConfirmed">>;

/** A Solana transaction confirmed at `finalized` and found successful; its id is the base58 signature. */
export type SolanaMined = ResultOf<"TransactionConfirmed">;

/** The sweep mined with its Swept log (the amounts are the log's), and where it delivered. */
export type SweepDone = OnEvm<ResultOf<"SweepConfirmed">> & { destChainId: number; destAddr: string };

/** A bridge message ready to be received on its destination chain. */
export interface AttestedMessage {
  message: string;
  attestation: string;
}

export type RelayDone = OnEvm<Omit<ResultOf<"BridgeRelayed">, "destChainId">>;

export interface ChainExecutorDeps {
  ledger: ExecutorLedger;
  settings: {
    stuckAfterMs: number;
    feeBumpPercent: number;
    bridgeFinality: number;
    bridgeMaxFeeBps: number;
    attestationApiUrl: string | undefined;
    attestationTimeoutMs: number;
    /** The spacing of the asks for one burn's attestation. */
    attestationPollMs: number;
  };
  /** The process's one budget of attestation API calls, shared by every chain's executor. */
  attestationPacer: Pacer;
  signal: AbortSignal;
}

/** A command's work as executor.commands carries it; each family carries out its own kinds. */
export type ExecutorWork = ExecutorCommand["command"];
export type ExecutorWorkType = ExecutorWork["type"];

/** The kinds of command a family carries out: the set the executor role checks, the guard its switch narrows by. */
export function commandKinds<const T extends ExecutorWorkType>(kinds: readonly T[]) {
  const carriesOut: ReadonlySet<ExecutorWorkType> = new Set(kinds);
  const isOwn = (w: ExecutorWork): w is Extract<ExecutorWork, { type: T }> => carriesOut.has(w.type);
  return { carriesOut, isOwn };
}
/** The commands of a family's `commandKinds`. */
export type OwnWork<K> = K extends { isOwn(w: ExecutorWork): w is infer W extends ExecutorWork } ? W : never;

/** The fast fill's payer on a chain: its USDC inventory and its payout (src/executor/fast-fill.ts). */
export interface FillPayer {
  /** The relayer's USDC on this chain, its inventory, in base units. */
  inventory(): Promise<bigint>;
  /** `amount` of this chain's USDC from the relayer's inventory to `to`. */
  payout(to: string, amount: bigint, step: StepTry): Promise<Mined>;
}

/**
 * What the executor role lends a family's executor for one command (src/executor/handle-command.ts):
 * the step runner and the reports are the role's, the same for every family; the transactions are
 * the family's.
 */
export interface CommandRun {
  readonly command: ExecutorCommand;
  /**
   * One step of the command on `chainId`, tried until it is done or given up (its ledger key is
   * "<commandId>/<name>"). `submitted`: each hash put on the wire is reported as the session's
   * TransactionSubmitted (a sweep's), else said nowhere until the result.
   */
  step<T>(name: string, chainId: number, fn: (t: StepTry) => Promise<T>, submitted?: boolean): Promise<T>;
  /** Reports one result of the command on executor.results (for `chainId`, default the command's). */
  report(result: ExecutorResult["result"], chainId?: number): Promise<void>;
  /** The executor of another chain the process sends on (a bridge relay's destination); gives up when none. */
  executorOf(chainId: number): ChainExecutor;
  /** Gives the command up for good, before anything (more) is signed: reported as a final ExecutionFailed. */
  giveUp(reason: string): never;
  /** The fast fill, reserved in the inventory ledger and paid by `payer` (src/executor/fast-fill.ts). */
  fastFill(payer: FillPayer): Promise<void>;
  /** A subscription's work: its outcome goes back to the subscription, not to executor.results. */
  subscriptionWork(call: (t: StepTry) => Promise<Mined>): Promise<void>;
}

/**
 * The executor's side of one chain, whatever its family: the kinds of command the family carries
 * out, and the carrying out. The executor role refuses any other kind before anything is signed,
 * so a family names only its own commands and has no stubs for the others'.
 */
export interface ChainExecutor {
  readonly carriesOut: ReadonlySet<ExecutorWorkType>;
  /** Carries out `run.command` (of a kind in `carriesOut`): every step through `run.step`, safe to run again. */
  execute(run: CommandRun): Promise<void>;
  /**
   * A step given up on must not happen later: replaces its pending transaction with a no-op at the
   * same nonce. Returns the no-op's hash, or null when nothing of the step was pending.
   */
  cancel(stepKey: string): Promise<TxHash | null>;
}
