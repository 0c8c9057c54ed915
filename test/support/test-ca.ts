import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throwaway certificate authority and one server certificate it signed, as PEM files and text. */
export interface TestCa {
  /** The CA certificate's file: what a client is told to trust (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  cert: string;
  key: string;
}

/**
 * Mints a CA and a P-256 server certificate for `names` (subjectAltName DNS entries) with the
 * machine's openssl, valid for two days, in a fresh temporary folder: a real local HTTPS server
 * that a client verifies, without a certificate in the repository.
 */
export function makeTestCa(names: readonly string[] = ["localhost"]): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "test-ca-"));
  const path = (f: string) => join(dir, f);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  openssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    path("ca.key"),
    "-out",
    path("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=settlement test CA",
  );
  openssl("req", ...ec, "-keyout", path("leaf.key"), "-out", path("leaf.csr"), "-subj", `/CN=${names[0]}`);
  writeFileSync(
    path("ext.cnf"),
    `subjectAltName=${names.map((n) => `DNS:${n}`).join(",")}\nbasicConstraints=CA:FALSE\n`,
  );
  openssl(
    "x509",
    "-req",
    "-in",
    path("leaf.csr"),
    "-CA",
    path("ca.pem"),
    "-CAkey",
    path("ca.key"),
    "-CAcreateserial",
    "-out",
    path("leaf.pem"),
    "-days",
    "2",
    "-extfile",
    path("ext.cnf"),
  );
  return {
    caFile: path("ca.pem"),
    cert: readFileSync(path("leaf.pem"), "utf8"),
    key: readFileSync(path("leaf.key"), "utf8"),
  };
}
