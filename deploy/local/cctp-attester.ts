// The local stand-in for Circle's attestation service (Iris): reads the MessageSent events of a source
// transaction, fills what the attester assigns in CCTP V2 (nonce, finalityThresholdExecuted; feeExecuted and
// expirationBlock stay 0 here), signs keccak256(message) with the attester key, and serves it in the wire form
// of `GET /v2/messages/{sourceDomainId}?transactionHash=0x...`. Nothing is stored: the nonce is derived from
// (source domain, transaction hash, log index), so every query of one event returns the same signed message and
// one burn can be minted only once. The local stack runs it as a process (deploy/local/attester.ts); by hand:
// `npx tsx deploy/local/cctp-attester.ts` (chains from ATTESTER_CHAINS, else .local/stack.json).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import Fastify, { type FastifyInstance } from "fastify";
import {
  type Address,
  createPublicClient,
  encodePacked,
  type Hex,
  http,
  isAddressEqual,
  keccak256,
  type PublicClient,
  parseEventLogs,
  TransactionReceiptNotFoundError,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { messageTransmitterV2Abi } from "../../src/chains/evm/abi.ts";
import {
  type BurnMessageBody,
  bytes32ToAddress,
  type CctpMessage,
  decodeBurnBody,
  decodeMessage,
  encodeMessage,
  FINALITY_CONFIRMED,
  FINALITY_FINALIZED,
} from "../../src/chains/evm/settle/cctp-message.ts";

export type AttesterChain = {
  domain: number;
  rpcUrl: string;
  messageTransmitter: Address;
  tokenMessenger: Address;
};

export type AttesterOptions = {
  chains: AttesterChain[];
  privateKey: Hex;
  /** Blocks (the event's included) before a message asking for more than "confirmed" finality is attested. */
  finalizedDepth?: number;
};

/** One entry of the API's `messages`, with Circle's field names (decoded values as decimal strings). */
export type AttestedMessage = {
  message: Hex;
  /** 65-byte signature (r, s, v) or "PENDING" while the source block is not deep enough. */
  attestation: Hex | "PENDING";
  eventNonce: Hex;
  cctpVersion: 2;
  status: "complete" | "pending_confirmations";
  decodedMessage: Record<string, unknown> | null;
};

export type Attester = {
  /** null when the domain is unknown; [] when the transaction is unknown or emitted no message. */
  messages(sourceDomain: number, transactionHash: Hex): Promise<AttestedMessage[] | null>;
};

export function createAttester(opts: AttesterOptions): Attester {
  const account = privateKeyToAccount(opts.privateKey);
  const finalizedDepth = BigInt(opts.finalizedDepth ?? 2);
  const clients = new Map<number, { chain: AttesterChain; client: PublicClient }>(
    opts.chains.map((chain) => [
      chain.domain,
      { chain, client: createPublicClient({ transport: http(chain.rpcUrl) }) as PublicClient },
    ]),
  );

  async function messages(sourceDomain: number, transactionHash: Hex): Promise<AttestedMessage[] | null> {
    const source = clients.get(sourceDomain);
    if (!source) return null;
    const { chain, client } = source;
    const receipt = await client.getTransactionReceipt({ hash: transactionHash }).catch((err: unknown) => {
      if (err instanceof TransactionReceiptNotFoundError) return undefined;
      throw err;
    });
    if (receipt?.status !== "success") return [];
    const head = await client.getBlockNumber();
    const depth = head - receipt.blockNumber + 1n;
    const sent = parseEventLogs({
      abi: messageTransmitterV2Abi,
      eventName: "MessageSent",
      logs: receipt.logs,
    })
      .filter((log) => isAddressEqual(log.address, chain.messageTransmitter))
      .sort((a, b) => a.logIndex - b.logIndex);
    return Promise.all(
      sent.map(async (log) => {
        const emitted = decodeMessage(log.args.message);
        const nonce = keccak256(
          encodePacked(
            ["uint32", "bytes32", "uint256"],
            [sourceDomain, transactionHash, BigInt(log.logIndex)],
          ),
        );
        // "Fast" messages (threshold <= 1000) are attested as confirmed once mined; others wait for depth.
        const fast = emitted.minFinalityThreshold <= FINALITY_CONFIRMED;
        const ready = fast || depth >= finalizedDepth;
        const filled: CctpMessage = {
          ...emitted,
          nonce,
          finalityThresholdExecuted: fast ? FINALITY_CONFIRMED : FINALITY_FINALIZED,
        };
        const message = encodeMessage(filled);
        return {
          message: ready ? message : "0x",
          attestation: ready ? await account.sign({ hash: keccak256(message) }) : "PENDING",
          eventNonce: nonce,
          cctpVersion: 2,
          status: ready ? "complete" : "pending_confirmations",
          decodedMessage: ready ? decoded(filled, chain) : null,
        } satisfies AttestedMessage;
      }),
    );
  }
  return { messages };
}

function decoded(m: CctpMessage, chain: AttesterChain): Record<string, unknown> {
  const fromMessenger = isAddressEqual(bytes32ToAddress(m.sender), chain.tokenMessenger);
  let body: BurnMessageBody | undefined;
  try {
    body = fromMessenger ? decodeBurnBody(m.messageBody) : undefined;
  } catch {
    body = undefined;
  }
  return {
    sourceDomain: String(m.sourceDomain),
    destinationDomain: String(m.destinationDomain),
    nonce: m.nonce,
    sender: m.sender,
    recipient: m.recipient,
    destinationCaller: m.destinationCaller,
    minFinalityThreshold: String(m.minFinalityThreshold),
    finalityThresholdExecuted: String(m.finalityThresholdExecuted),
    messageBody: m.messageBody,
    decodedMessageBody: body
      ? {
          burnToken: body.burnToken,
          mintRecipient: body.mintRecipient,
          amount: String(body.amount),
          messageSender: body.messageSender,
          maxFee: String(body.maxFee),
          feeExecuted: String(body.feeExecuted),
          expirationBlock: String(body.expirationBlock),
          hookData: body.hookData,
        }
      : null,
  };
}

/** The HTTP surface: Circle's path and query, JSON errors `{ error }` with 400 or 404 like Iris. */
function attesterRoutes(attester: Attester): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get<{ Params: { sourceDomainId: string }; Querystring: { transactionHash?: string } }>(
    "/v2/messages/:sourceDomainId",
    async (req, reply) => {
      const domain = Number(req.params.sourceDomainId);
      if (!/^\d+$/.test(req.params.sourceDomainId) || !Number.isSafeInteger(domain)) {
        return reply
          .code(400)
          .send({ error: `invalid source domain ${JSON.stringify(req.params.sourceDomainId)}` });
      }
      const hash = req.query.transactionHash;
      if (!hash || !/^0x[0-9a-fA-F]{64}$/.test(hash)) {
        return reply.code(400).send({ error: "transactionHash must be a 0x-prefixed 32-byte hex string" });
      }
      const found = await attester.messages(domain, hash as Hex);
      if (found === null) return reply.code(400).send({ error: `unknown source domain ${domain}` });
      if (found.length === 0) return reply.code(404).send({ error: "Message not found" });
      return { messages: found };
    },
  );
  return app;
}

export async function startAttesterServer(
  opts: AttesterOptions & { host?: string; port?: number },
): Promise<{ url: string; close: () => Promise<void> }> {
  const app = attesterRoutes(createAttester(opts));
  const address = await app.listen({ host: opts.host ?? "127.0.0.1", port: opts.port ?? 0 });
  return { url: address, close: () => app.close() };
}

/** The attester's view of the local stack file's chains (those with a bridge). */
export function attesterChainsFromStack(stack: {
  chains: {
    rpcUrl: string;
    cctp?: { domain: number; messageTransmitter: Address; tokenMessenger: Address };
  }[];
}): AttesterChain[] {
  return stack.chains.flatMap((c) => (c.cctp ? [{ rpcUrl: c.rpcUrl, ...c.cctp }] : []));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const chains: AttesterChain[] = process.env.ATTESTER_CHAINS
    ? JSON.parse(process.env.ATTESTER_CHAINS)
    : attesterChainsFromStack(
        JSON.parse(readFileSync(process.env.STACK_FILE ?? ".local/stack.json", "utf8")),
      );
  // anvil dev account #4 (deploy/local/chains.ts DEV_ACCOUNTS.attester): a public test key, local chains only.
  const privateKey = (process.env.ATTESTER_PRIVATE_KEY ??
    "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a") as Hex;
  const { url } = await startAttesterServer({
    chains,
    privateKey,
    port: Number(process.env.ATTESTER_PORT ?? 18547),
  });
  console.log(`cctp attester listening on ${url} (GET /v2/messages/{sourceDomainId}?transactionHash=0x...)`);
}
