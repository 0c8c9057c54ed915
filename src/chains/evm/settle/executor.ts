import { type Address, createPublicClient, type Hex, http, type PublicClient } from "viem";
import type { ChainExecutor, ChainExecutorDeps } from "../../adapter.ts";
import { StepRefused } from "../../execution-errors.ts";
import type { EvmChainConfig } from "../config.ts";
import { checkSubscriptionCall, subscriptionCallRequest } from "../subscriptions/subscription-calls.ts";
import { announceRequest, checkAnnouncement } from "./announce.ts";
import { fetchAttestation } from "./attestation.ts";
import { AlreadyReceived, checkMint, earlierReceipt, relayRequest } from "./bridge-relay.ts";
import { type EvmChainSteps, evmExecutor } from "./carry-out.ts";
import { checkPayout, type Payout, payoutRequest, usdcBalance } from "./payout.ts";
import { checkRefund, refundRequest } from "./refunds.ts";
import { createRelayerWallet } from "./relayer-wallet.ts";
import { checkSweep, sweepRequest } from "./sweep.ts";

/**
 * The EVM executor of one chain: its relayer wallet (ledger-backed nonces) and the settlement
 * calls, carried out command by command in carry-out.ts.
 */
export function createEvmExecutor(chain: EvmChainConfig, deps: ChainExecutorDeps): ChainExecutor {
  return evmExecutor(createEvmChainSteps(chain, deps));
}

function createEvmChainSteps(chain: EvmChainConfig, deps: ChainExecutorDeps): EvmChainSteps {
  const key = chain.relayer?.privateKey;
  if (!key)
    throw new StepRefused(`chain ${chain.chainId} has no relayer key: the executor cannot send`, null);
  // Its own client with a bounded request time: a step waits for the node, never forever.
  const client = createPublicClient({
    transport: http(chain.rpcUrl, { timeout: 10_000, retryCount: 1 }),
    pollingInterval: 250,
  }) as PublicClient;
  const { settings } = deps;
  const wallet = createRelayerWallet({
    chainId: chain.chainId,
    client,
    privateKey: key as Hex,
    ledger: deps.ledger,
    stuckAfterMs: settings.stuckAfterMs,
    feeBumpPercent: settings.feeBumpPercent,
    signal: deps.signal,
  });
  const delegate = chain.delegate as Address;
  const bridge = () => {
    if (!chain.cctp) throw new StepRefused(`chain ${chain.chainId} has no CCTP bridge configured`, null);
    return chain.cctp as { domain: number; messageTransmitter: Address; tokenMessenger: Address };
  };

  const usdcOf = (): Address => {
    if (!chain.usdc)
      throw new StepRefused(`chain ${chain.chainId} has no USDC configured: it cannot pay a fill`, null);
    return chain.usdc as Address;
  };
  return {
    async sweep(command, step) {
      const build = sweepRequest(client, wallet.address, command, { chainId: chain.chainId, ...settings });
      const receipt = await wallet.send(step, build);
      return checkSweep(
        client,
        command,
        { chainId: chain.chainId, delegate, usdc: chain.usdc as Address | undefined },
        receipt,
      );
    },
    async attestation(txHash) {
      if (!settings.attestationApiUrl)
        throw new StepRefused("no attestation API configured (ATTESTATION_API_URL)", txHash);
      return fetchAttestation({
        apiUrl: settings.attestationApiUrl,
        sourceDomain: bridge().domain,
        txHash,
        timeoutMs: settings.attestationTimeoutMs,
        pollMs: settings.attestationPollMs,
        pacer: deps.attestationPacer,
        signal: deps.signal,
      });
    },
    async relay(attested, recipient, step) {
      const b = bridge();
      try {
        return checkMint(
          await wallet.send(step, relayRequest(client, wallet.address, b, attested)),
          b,
          recipient,
        );
      } catch (err) {
        if (!(err instanceof AlreadyReceived)) throw err;
        // Received before (by anyone: receiveMessage is open): that relay is the one to report.
        return checkMint(await earlierReceipt(client, b, err.nonce), b, recipient);
      }
    },
    async refund(command, step) {
      const receipt = await wallet.send(step, refundRequest(client, wallet.address, delegate, command));
      return checkRefund(receipt, command, "Refunded");
    },
    async announce(command, step) {
      const relayer = wallet.address as Address;
      return checkAnnouncement(
        await wallet.send(step, announceRequest(client, relayer, command)),
        relayer,
        command,
      );
    },
    cancel: (stepKey) => wallet.cancel(stepKey),
    async inventory() {
      return usdcBalance(client, usdcOf(), wallet.address as Address);
    },
    async payout(to, amount, step) {
      const p: Payout = { usdc: usdcOf(), relayer: wallet.address as Address, to: to as Address, amount };
      return checkPayout(await wallet.send(step, payoutRequest(client, p)), p);
    },
    async subscriptionCall(command, step) {
      const receipt = await wallet.send(step, subscriptionCallRequest(client, wallet.address, command));
      return checkSubscriptionCall(receipt, command);
    },
    async refundAll(command, step) {
      const receipt = await wallet.send(step, refundRequest(client, wallet.address, delegate, command));
      return checkRefund(receipt, command, "StandingRefundExecuted");
    },
  };
}
