/**
 * `DEMO_FLOW=stealth npm run demo`: stealth settlement (Flow D, docs/STEALTH.md) on the local stack.
 * The recipient makes its spending and viewing keys and gives the merchant only the public halves (an
 * ERC-5564 meta-address); the merchant's Flow D checkout derives a one-time stealth address for the
 * session; the payer pays it as any checkout; once swept, the recipient finds the payment on chain with
 * its viewing key, derives the stealth address's key, and withdraws gaslessly: the service's relayer
 * sends the withdrawal and is paid a fee out of it, so the stealth address never needs ETH.
 */
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex } from "@noble/hashes/utils";
import {
  deriveStealthKey,
  scanStealthAnnouncements,
  signStealthWithdrawal,
  withdrawStealth,
} from "deposit-settlement/client";
import { createPaymentSession, getStealthAnnouncements, setStealthMeta } from "deposit-settlement/merchant";
import { type Hex, parseUnits } from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { formatMetaAddress } from "../../src/stealth/erc5564.ts";
import { payCheckoutPage } from "./demo-checkout-page.ts";
import { demoMerchant } from "./demo-merchant.ts";
import { testPayer } from "./demo-payer.ts";
import { readStack } from "./stack.ts";

const stack = await readStack(); // .local/stack.json, written by `npm start`
const [source] = stack?.chains ?? [];
if (!source?.stealthRelay) throw new Error("no local stack with a StealthRelay: run `npm start` first");
const gatewayUrl = process.env.GATEWAY_URL ?? "http://127.0.0.1:8080";
const { reader } = testPayer(source); // reads the source chain for the recipient
const fromBlock = await reader.getBlockNumber();

// The recipient's keys: only the public halves leave its hands, as the meta-address.
const keyPair = () => {
  const priv = secp256k1.utils.randomPrivateKey();
  return {
    priv: `0x${bytesToHex(priv)}` as Hex,
    pub: `0x${bytesToHex(secp256k1.getPublicKey(priv, true))}` as Hex,
  };
};
const spend = keyPair();
const view = keyPair();
const metaAddress = formatMetaAddress({ spendPubkey: spend.pub, viewPubkey: view.pub });

// The merchant's server: the meta-address, then a Flow D checkout session for 25 USDC.
const { pk, merchant } = await demoMerchant("Demo Stealth Shop", gatewayUrl);
await setStealthMeta(merchant, { metaAddress });
const checkout = await createPaymentSession(merchant, { amount: "25000000", stealth: true });
console.log(`stealth checkout session ${checkout.id}, meta-address ${metaAddress}`);

// The payer's page: as any checkout; the Intent it signs pays the session's stealth address.
const { client, settled } = await payCheckoutPage({
  source,
  gatewayUrl,
  publishableKey: pk,
  session: checkout,
});
console.log(
  `settled outcome=${settled.outcome} to stealth address ${settled.dest_address}: ${settled.sweep_tx}`,
);

// The service announces the payment on chain once swept (ERC-5564's Announcer).
for (let tries = 0; ; tries++) {
  const [announced] = await getStealthAnnouncements(merchant, { id: checkout.id });
  if (announced?.tx) break;
  if (tries > 60) throw new Error("the payment was not announced within a minute");
  await new Promise((r) => setTimeout(r, 1000));
}

// The recipient: finds the payment from the chain with its viewing key, derives the spending key.
const [found] = await scanStealthAnnouncements(reader, {
  viewPrivateKey: view.priv,
  spendPublicKey: spend.pub,
  fromBlock,
});
if (!found) throw new Error("the recipient's scan found no payment");
const stealthKey = deriveStealthKey({ ...found, viewPrivateKey: view.priv, spendPrivateKey: spend.priv });
console.log(`found ${found.stealthAddress} in ${found.txHash}; its key derived: ${stealthKey.address}`);

// The gasless withdrawal: all of it to a fresh wallet, 2 USDC of it to the relayer that sends it.
const value = BigInt(settled.settled_amount ?? "0");
const wallet = privateKeyToAddress(generatePrivateKey());
const withdrawal = await signStealthWithdrawal({
  signer: privateKeyToAccount(stealthKey.privateKey),
  chainId: source.chainId,
  usdc: source.usdc,
  relay: source.stealthRelay,
  value,
  destination: wallet,
  fee: parseUnits("2", 6),
  relayer: source.relayer.address,
});
const withdrawn = await withdrawStealth(client, { withdrawal });
await reader.waitForTransactionReceipt({ hash: withdrawn.tx_hash as Hex });
const held = await reader.readContract({
  address: source.usdc,
  abi: testUsdcAbi,
  functionName: "balanceOf",
  args: [wallet],
});
console.log(`withdrawn ${withdrawn.amount} (fee ${withdrawn.fee}) in ${withdrawn.tx_hash}`);
console.log(`wallet ${wallet} holds ${held} USDC base units on chain ${source.chainId}`);
