// Sends a run of deployments and calls from one account back to back with consecutive nonces, then waits for
// all receipts at once: anvil mines one block a second, so waiting per transaction would cost a second each.
// Addresses of deployments are known before they are mined (CREATE: sender + nonce), so later calls in the same
// batch can target them; calls therefore carry an explicit gas limit (estimating against a contract that is
// not mined yet would be wrong).
import {
  type Abi,
  type Account,
  type Address,
  type Chain,
  type ContractFunctionArgs,
  type ContractFunctionName,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from "viem";

export type Wallet = WalletClient<Transport, Chain, Account>;

export type TxBatch = {
  readonly from: Address;
  /** Queues a deployment and returns the address it will have. */
  deploy(label: string, c: { abi: Abi; bytecode: Hex; args?: readonly unknown[]; gas: bigint }): Address;
  call<const A extends Abi, F extends ContractFunctionName<A, "nonpayable" | "payable">>(
    label: string,
    c: {
      address: Address;
      abi: A;
      functionName: F;
      args: ContractFunctionArgs<A, "nonpayable" | "payable", F>;
      gas: bigint;
      value?: bigint;
    },
  ): void;
  /** Waits for everything queued; throws naming the first transaction that failed. */
  settle(): Promise<number>;
};

export async function createBatch(client: PublicClient, wallet: Wallet): Promise<TxBatch> {
  const from = wallet.account.address;
  let nonce = await client.getTransactionCount({ address: from, blockTag: "pending" });
  const sent: { label: string; hash: Promise<Hex> }[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  // Sends strictly in nonce order: anvil holds a nonce gap back, but ordering keeps failures readable.
  const send = (label: string, tx: { to?: Address; data: Hex; gas: bigint; value?: bigint }) => {
    const n = nonce++;
    const hash = chain.then(() =>
      wallet.sendTransaction({
        ...tx,
        to: tx.to ?? null,
        nonce: n,
        account: wallet.account,
        chain: wallet.chain,
      }),
    );
    chain = hash.catch(() => {});
    sent.push({ label, hash });
    return n;
  };
  return {
    from,
    deploy(label, c) {
      const data = encodeDeployData({ abi: c.abi, bytecode: c.bytecode, args: c.args ?? [] });
      const n = send(label, { data, gas: c.gas });
      return getAddress(getContractAddress({ from, nonce: BigInt(n) }));
    },
    call(label, c) {
      const data = encodeFunctionData({ abi: c.abi, functionName: c.functionName, args: c.args } as never);
      send(label, { to: c.address, data, gas: c.gas, ...(c.value === undefined ? {} : { value: c.value }) });
    },
    async settle() {
      for (const { label, hash } of sent) {
        const receipt = await client.waitForTransactionReceipt({ hash: await hash });
        if (receipt.status !== "success")
          throw new Error(`${label} reverted (tx ${receipt.transactionHash})`);
      }
      return sent.length;
    },
  };
}
