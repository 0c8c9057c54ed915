import { type Hex, type PublicClient, parseAbiItem, BaseError as ViemBaseError } from "viem";
import { ERC5564_ANNOUNCER, ERC5564_SCHEME_ID, isOurs } from "../../stealth/erc5564.ts";
import { ClientError } from "../errors.ts";

const announcement = parseAbiItem(
  "event Announcement(uint256 indexed schemeId, address indexed stealthAddress, address indexed caller, bytes ephemeralPubKey, bytes metadata)",
);

export interface ScanStealthAnnouncementsParameters {
  /** The recipient's viewing private key (0x, 32 bytes): it finds payments but cannot spend them. */
  viewPrivateKey: Hex;
  /** The recipient's spending public key (0x, compressed, 33 bytes), as in its meta-address. */
  spendPublicKey: Hex;
  /** The first block to read (default 0) and the last (default the latest). */
  fromBlock?: bigint | undefined;
  toBlock?: bigint | undefined;
}

/** One payment to the recipient, as announced on chain. */
export interface StealthPayment {
  stealthAddress: Hex;
  ephemeralPubkey: Hex;
  viewTag: number;
  /** The announcement's transaction and block. */
  txHash: Hex;
  blockNumber: bigint;
}

export type ScanStealthAnnouncementsReturnType = StealthPayment[];
/** `network_error` (retryable): the RPC did not answer. */
export type ScanStealthAnnouncementsErrorType = ClientError<"network_error">;

/**
 * The stealth recipient's scanner (docs/STEALTH.md, ERC-5564 scheme 1): reads the `Announcement`
 * logs of the announcer at its canonical address through the recipient's own RPC, and keeps those
 * whose view tag and derived address are the recipient's. Needs no service: the chain alone tells
 * a merchant which Flow D payments are its own. `deriveStealthKey` then gives each one's spending key.
 *
 * @example
 * import { createPublicClient, http } from "viem";
 * import { scanStealthAnnouncements } from "deposit-settlement/client";
 * const publicClient = createPublicClient({ transport: http("https://rpc.example") });
 * const payments = await scanStealthAnnouncements(publicClient, { viewPrivateKey, spendPublicKey });
 */
export async function scanStealthAnnouncements(
  publicClient: Pick<PublicClient, "getLogs">,
  params: ScanStealthAnnouncementsParameters,
): Promise<ScanStealthAnnouncementsReturnType> {
  let logs: Awaited<ReturnType<typeof readLogs>>;
  try {
    logs = await readLogs(publicClient, params);
  } catch (err) {
    const why = err instanceof ViemBaseError ? err.shortMessage : String(err);
    throw new ClientError("network_error", `the announcements could not be read: ${why}`, {
      cause: err,
      retryable: true,
    });
  }
  const keys = { viewPrivateKey: params.viewPrivateKey, spendPubkey: params.spendPublicKey };
  const found: StealthPayment[] = [];
  for (const log of logs) {
    const { stealthAddress, ephemeralPubKey, metadata } = log.args;
    // The view tag is the metadata's first byte (ERC-5564); an announcement without one is not ours.
    if (!stealthAddress || !ephemeralPubKey || !metadata || metadata.length < 4) continue;
    const viewTag = Number.parseInt(metadata.slice(2, 4), 16);
    if (!isOurs({ ephemeralPubkey: ephemeralPubKey, viewTag, stealthAddress }, keys)) continue;
    if (log.transactionHash === null || log.blockNumber === null) continue; // pending: not announced yet
    found.push({
      stealthAddress: stealthAddress.toLowerCase() as Hex,
      ephemeralPubkey: ephemeralPubKey,
      viewTag,
      txHash: log.transactionHash,
      blockNumber: log.blockNumber,
    });
  }
  return found;
}

const readLogs = (publicClient: Pick<PublicClient, "getLogs">, params: ScanStealthAnnouncementsParameters) =>
  publicClient.getLogs({
    address: ERC5564_ANNOUNCER,
    event: announcement,
    args: { schemeId: ERC5564_SCHEME_ID },
    fromBlock: params.fromBlock ?? 0n,
    toBlock: params.toBlock ?? "latest",
  });
