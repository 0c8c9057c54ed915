import { readFileSync } from "node:fs";
import cassandra from "cassandra-driver";
import {
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSRequestTimeoutError,
} from "kafkajs";
import { describe, expect, it } from "vitest";
import { AUTHORIZATION_PROBLEMS } from "../../src/chains/signature-problems.ts";
import { REJECTION_MESSAGES } from "../../src/domain/rejections.ts";
import { ERRORS, GatewayError, replyError, toGatewayError } from "../../src/gateway/errors.ts";
import { ReplyTimeoutError } from "../../src/gateway/ports.ts";

const doc = readFileSync(new URL("../../docs/API.md", import.meta.url), "utf8");
/** Rows of the docs' error table: `| \`code\` | status | ...`. */
const documented = new Map(
  [...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|/gm)].map((m) => [m[1] as string, Number(m[2])]),
);

describe("error registry", () => {
  it.each(Object.entries(ERRORS))("documents %s in docs/API.md with its status", (code, spec) => {
    expect(documented.get(code)).toBe(spec.status);
  });

  it("documents no code the registry does not have", () => {
    expect([...documented.keys()].filter((code) => !(code in ERRORS))).toEqual([]);
  });

  it("includes every domain rejection and signature check, with the domain's message", () => {
    for (const [code, message] of Object.entries(REJECTION_MESSAGES))
      expect(ERRORS[code as keyof typeof ERRORS]?.message).toBe(message);
    for (const [code, message] of Object.entries(AUTHORIZATION_PROBLEMS)) {
      expect(ERRORS[code as keyof typeof ERRORS]).toEqual({ status: 400, message, retryable: false });
    }
  });

  it("documents every code's retry advice as the registry gives it", () => {
    const advice = new Map(
      [...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*\d{3}\s*\|[^|]*\|\s*([^|]*?)\s*\|$/gm)].map((m) => [
        m[1] as string,
        (m[2] as string).startsWith("yes"),
      ]),
    );
    for (const [code, spec] of Object.entries(ERRORS))
      expect([code, advice.get(code)]).toEqual([code, spec.retryable]);
  });

  it("answers unknown errors as internal, never with their message", () => {
    const err = toGatewayError(new Error("secret detail"));
    expect([err.code, err.status, err.message]).toEqual(["internal", 500, "internal error"]);
  });

  it("answers an owner timeout as a retryable 503", () => {
    const err = toGatewayError(new ReplyTimeoutError("late"));
    expect([err.code, err.status, err.retryable, err.headers["retry-after"]]).toEqual([
      "reply_timeout",
      503,
      true,
      "1",
    ]);
  });

  // The errors the clients raise when their server is away (test/e2e/*-outage.e2e.test.ts meet them live).
  const { NoHostAvailableError, OperationTimedOutError, ResponseError, DriverError } = cassandra.errors;
  // Typed abstract, yet the driver raises it itself for a socket closed under a request.
  const Driver = DriverError as unknown as new (message: string) => Error;
  const socketClosed = Object.assign(new Driver("Socket was closed"), { isSocketError: true });
  // kafkajs builds protocol errors from its table of response codes; its typings omit that shape.
  const protocolError = (type: string, retriable: boolean) =>
    new KafkaJSProtocolError({ type, code: 0, retriable, message: type } as unknown as Error);
  const outages: Array<[string, Error]> = [
    ["kafka connection refused", new KafkaJSConnectionError("Connection error: connect ECONNREFUSED")],
    [
      "kafka request timeout",
      new KafkaJSRequestTimeoutError("Request Produce(key: 0, version: 7) timed out"),
    ],
    [
      "kafka retries run out",
      new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError("refused"), {
        retryCount: 8,
        retryTime: 900,
      }),
    ],
    ["kafka leader not elected yet", protocolError("LEADER_NOT_AVAILABLE", true)],
    // A broker restarted without the producer's sequence refuses the batch; the producer is
    // replaced (src/kafka/at-least-once.ts), and a send that still meets it is safe to retry.
    ["kafka producer sequence lost", protocolError("OUT_OF_ORDER_SEQUENCE_NUMBER", false)],
    ["kafka producer id unknown", protocolError("UNKNOWN_PRODUCER_ID", false)],
    ["cassandra no host", new NoHostAvailableError({})],
    ["cassandra client timeout", new OperationTimedOutError("timed out", "127.0.0.1:9042")],
    ["cassandra socket closed", socketClosed],
    // What the driver's connection pool throws, unwrapped, when a statement is prepared meanwhile.
    ["cassandra pool empty while preparing", new Error("No connection available")],
    [
      "cassandra write timeout",
      new ResponseError(cassandra.types.responseErrorCodes.writeTimeout, "timeout"),
    ],
  ];
  it.each(outages)("answers an outage (%s) as a retryable 503 with Retry-After", (_what, cause) => {
    const err = toGatewayError(cause);
    expect([err.code, err.status, err.retryable, err.headers["retry-after"]]).toEqual([
      "service_unavailable",
      503,
      true,
      "5",
    ]);
  });

  it("answers a Kafka or Cassandra error that is no outage as internal", () => {
    const tooLarge = protocolError("MESSAGE_TOO_LARGE", false);
    const syntax = new ResponseError(cassandra.types.responseErrorCodes.syntaxError, "bad CQL");
    const plain = new Error("something else went wrong");
    expect([toGatewayError(tooLarge).code, toGatewayError(syntax).code, toGatewayError(plain).code]).toEqual([
      "internal",
      "internal",
      "internal",
    ]);
  });

  it("answers a refused reply from its code, whatever status the reply carries", () => {
    const refused = { status: 409, code: "session_not_found", message: "gone" };
    expect([replyError(refused)?.status, replyError(refused)?.message]).toEqual([404, "gone"]);
    expect(replyError({ status: 200, code: null, message: null })).toBeNull();
  });

  it("answers a reply it cannot read as internal, not as accepted", () => {
    expect(replyError({ status: 201, code: null, message: null })?.code).toBe("internal");
    expect(replyError({ status: 409, code: "no_such_code", message: "?" })?.code).toBe("internal");
  });

  it("keeps a registered error as it is", () => {
    const err = new GatewayError("rate_limited", "slow down");
    expect(toGatewayError(err)).toBe(err);
  });
});
