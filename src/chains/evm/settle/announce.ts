import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
  toHex,
} from "viem";
import { ERC5564_ANNOUNCER, ERC5564_SCHEME, ERC5564_SCHEME_ID } from "../../../stealth/erc5564.ts";
import type { AnnounceCommand, Mined } from "../../adapter.ts";
import { EffectMissing, StepRefused } from "../../execution-errors.ts";
import { erc5564AnnouncerAbi } from "../abi.ts";
import type { TxRequest } from "./relayer-wallet.ts";
import { estimate, minedOf, mustSucceed, withMargin } from "./sweep.ts";

/**
 * A Flow D session's ERC-5564 announcement (docs/STEALTH.md): `announce(1, stealthAddress,
 * ephemeralPubKey, metadata)` on the announcer at its canonical address, the view tag as the
 * metadata's one byte. Estimated first: a chain without the announcer's code, or a call that would
 * revert, fails before anything is sent.
 */
export function announceRequest(
  client: PublicClient,
  relayer: Address,
  c: AnnounceCommand,
): () => Promise<TxRequest> {
  if (c.scheme !== ERC5564_SCHEME)
    throw new StepRefused(`an EVM chain announces only ${ERC5564_SCHEME}, not ${c.scheme}`, null);
  return async () => {
    const code = await client.getCode({ address: ERC5564_ANNOUNCER });
    // A call to an address without code succeeds and emits nothing: refused, not paid for.
    if (code === undefined || code === "0x")
      throw new StepRefused(`no ERC-5564 announcer at ${ERC5564_ANNOUNCER} on this chain`, null);
    const data = encodeFunctionData({
      abi: erc5564AnnouncerAbi,
      functionName: "announce",
      args: [
        ERC5564_SCHEME_ID,
        c.stealthAddress as Address,
        c.ephemeralPubkey as Hex,
        toHex(c.viewTag, { size: 1 }),
      ],
    });
    const gas = await estimate(() => client.estimateGas({ account: relayer, to: ERC5564_ANNOUNCER, data }));
    return { to: ERC5564_ANNOUNCER, data, gas: withMargin(gas) };
  };
}

/** The announcement's effect: the announcer's Announcement log for this stealth address, by the relayer. */
export function checkAnnouncement(receipt: TransactionReceipt, relayer: Address, c: AnnounceCommand): Mined {
  mustSucceed(receipt);
  const found = parseEventLogs({
    abi: erc5564AnnouncerAbi,
    eventName: "Announcement",
    logs: receipt.logs,
  }).some(
    (l) =>
      isAddressEqual(l.address, ERC5564_ANNOUNCER) &&
      l.args.schemeId === ERC5564_SCHEME_ID &&
      isAddressEqual(l.args.stealthAddress, c.stealthAddress as Address) &&
      isAddressEqual(l.args.caller, relayer),
  );
  if (!found)
    throw new EffectMissing(
      `transaction ${receipt.transactionHash} mined without the announcement of ${c.stealthAddress}`,
      receipt.transactionHash,
    );
  return minedOf(receipt);
}
