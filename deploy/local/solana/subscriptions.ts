// The PubSub side of the node: signatureSubscribe, slotSubscribe and accountSubscribe over WebSocket,
// with Agave's notification shapes. web3.js's confirmTransaction waits on signatureSubscribe.
import type { WebSocket } from "ws";
import type { Chain, Commitment, TxRecord } from "./chain.ts";
import { INVALID_PARAMS, METHOD_NOT_FOUND, RpcError } from "./errors.ts";
import { accountJson } from "./wire.ts";

type Sub =
  | { kind: "signature"; socket: WebSocket; signature: string; commitment: Commitment }
  | { kind: "slot"; socket: WebSocket }
  | { kind: "account"; socket: WebSocket; address: string; commitment: Commitment; encoding: string };

const NOTIFICATION = {
  signature: "signatureNotification",
  slot: "slotNotification",
  account: "accountNotification",
};

export function createSubscriptions(chain: Chain) {
  const subs = new Map<number, Sub>();
  let nextId = 0;

  const notify = (id: number, sub: Sub, result: unknown) => {
    if (sub.socket.readyState !== sub.socket.OPEN) return;
    sub.socket.send(
      JSON.stringify({
        jsonrpc: "2.0",
        method: NOTIFICATION[sub.kind],
        params: { result, subscription: id },
      }),
    );
  };
  const signatureDone = (id: number, sub: Sub & { kind: "signature" }, tx: TxRecord) => {
    notify(id, sub, { context: { slot: tx.slot }, value: { err: tx.err } });
    subs.delete(id); // a signature subscription ends with its notification
  };
  const accountChanged = (commitment: "confirmed" | "finalized", keys: string[]) => {
    for (const [id, sub] of subs) {
      if (sub.kind !== "account" || !keys.includes(sub.address)) continue;
      if ((sub.commitment === "finalized") !== (commitment === "finalized")) continue;
      const value = accountJson(chain, sub.address, sub.encoding);
      if (value) notify(id, sub, { context: { slot: chain.slotAt(commitment) }, value });
    }
  };

  chain.on({
    transaction(tx) {
      for (const [id, sub] of subs)
        if (sub.kind === "signature" && sub.signature === tx.signature && sub.commitment !== "finalized")
          signatureDone(id, sub, tx);
      accountChanged("confirmed", tx.accountKeys);
    },
    slot(slot, finalized) {
      for (const [id, sub] of subs)
        if (sub.kind === "slot") notify(id, sub, { parent: slot - 1, root: finalized, slot });
    },
    finalized(block) {
      for (const tx of block.transactions)
        for (const [id, sub] of subs)
          if (sub.kind === "signature" && sub.signature === tx.signature && sub.commitment === "finalized")
            signatureDone(id, sub, tx);
      accountChanged("finalized", [...new Set(block.transactions.flatMap((t) => t.accountKeys))]);
    },
  });

  const commitmentOf = (c: unknown): Commitment => {
    const value = (c as { commitment?: Commitment } | undefined)?.commitment ?? "finalized";
    return value === "processed" ? "confirmed" : value;
  };

  return {
    /** Answers one subscription request; the caller sends the result. */
    handle(socket: WebSocket, method: string, params: unknown[]): unknown {
      const [first, opts] = params;
      if (method.endsWith("Unsubscribe")) {
        const id = first as number;
        const sub = subs.get(id);
        if (!sub || sub.socket !== socket) throw new RpcError(INVALID_PARAMS, "Invalid subscription id.");
        subs.delete(id);
        return true;
      }
      const id = nextId++;
      if (method === "slotSubscribe") {
        subs.set(id, { kind: "slot", socket });
        return id;
      }
      if (typeof first !== "string" || first.length === 0)
        throw new RpcError(INVALID_PARAMS, "Invalid params");
      if (method === "signatureSubscribe") {
        const sub = { kind: "signature" as const, socket, signature: first, commitment: commitmentOf(opts) };
        subs.set(id, sub);
        // Already there: notify right after the subscription id has gone out.
        const tx = chain.transaction(first);
        if (tx && chain.reached(tx, sub.commitment))
          setImmediate(() => subs.has(id) && signatureDone(id, sub, tx));
        return id;
      }
      if (method === "accountSubscribe") {
        const encoding = (opts as { encoding?: string } | undefined)?.encoding ?? "base64";
        if (encoding !== "base64")
          throw new RpcError(INVALID_PARAMS, `encoding ${encoding} is not served here`);
        subs.set(id, { kind: "account", socket, address: first, commitment: commitmentOf(opts), encoding });
        return id;
      }
      throw new RpcError(METHOD_NOT_FOUND, "Method not found");
    },
    /** Drops a closed socket's subscriptions. */
    close(socket: WebSocket): void {
      for (const [id, sub] of subs) if (sub.socket === socket) subs.delete(id);
    },
  };
}
