// litesvm's transaction errors in the JSON form a Solana RPC node answers with ("AccountNotFound",
// { InstructionError: [0, { Custom: 1 }] }). litesvm's enums are `const enum`s with no runtime object, so
// the names are listed here in their declared order (litesvm 1.5's internal.d.ts).
import type { FailedTransactionMetadata } from "litesvm";

const TX_ERRORS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
] as const;

const IX_ERRORS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
  "UnbalancedInstruction",
  "ModifiedProgramId",
  "ExternalAccountLamportSpend",
  "ExternalAccountDataModified",
  "ReadonlyLamportChange",
  "ReadonlyDataModified",
  "DuplicateAccountIndex",
  "ExecutableModified",
  "RentEpochModified",
  "NotEnoughAccountKeys",
  "AccountDataSizeChanged",
  "AccountNotExecutable",
  "AccountBorrowFailed",
  "AccountBorrowOutstanding",
  "DuplicateAccountOutOfSync",
  "InvalidError",
  "ExecutableDataModified",
  "ExecutableLamportChange",
  "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId",
  "CallDepth",
  "MissingAccount",
  "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded",
  "InvalidSeeds",
  "InvalidRealloc",
  "ComputationalBudgetExceeded",
  "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure",
  "ProgramFailedToComplete",
  "ProgramFailedToCompile",
  "Immutable",
  "IncorrectAuthority",
  "AccountNotRentExempt",
  "InvalidAccountOwner",
  "ArithmeticOverflow",
  "UnsupportedSysvar",
  "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded",
  "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits",
  "BorshIoError",
] as const;

/** A transaction error as the RPC's `err` field: a string or a one-key object. */
export type RpcTxError = string | Record<string, unknown>;

function instructionError(err: unknown): unknown {
  if (typeof err === "number") return IX_ERRORS[err] ?? "GenericError";
  if (err && typeof err === "object" && "code" in err) return { Custom: (err as { code: number }).code };
  if (err && typeof err === "object" && "msg" in err) return { BorshIoError: (err as { msg: string }).msg };
  return "GenericError";
}

export function rpcTxError(failed: FailedTransactionMetadata): RpcTxError {
  const err: unknown = failed.err();
  if (typeof err === "number") return TX_ERRORS[err] ?? "SanitizeFailure";
  if (err && typeof err === "object") {
    const o = err as {
      index?: number;
      accountIndex?: number;
      err?: () => unknown;
      constructor: { name: string };
    };
    if (typeof o.err === "function") return { InstructionError: [o.index, instructionError(o.err())] };
    if (o.constructor.name.includes("DuplicateInstruction")) return { DuplicateInstruction: o.index };
    if (o.constructor.name.includes("InsufficientFundsForRent"))
      return { InsufficientFundsForRent: { account_index: o.accountIndex } };
    return { ProgramExecutionTemporarilyRestricted: { account_index: o.accountIndex } };
  }
  return "SanitizeFailure";
}

/** JSON-RPC errors with the codes Agave uses, so clients' error handling sees what it expects. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;
export const PREFLIGHT_FAILURE = -32002;
export const SLOT_SKIPPED = -32007;
export const BLOCK_NOT_AVAILABLE = -32004;
