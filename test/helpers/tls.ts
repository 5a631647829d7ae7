/**
 * A private CA and a server certificate it signed for 127.0.0.1 (and localhost), made with the
 * machine's `openssl` into a temp folder once per test process: what a model server on another
 * machine behind a company's CA looks like. The CA is trusted by nothing until a test says so.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempFolder } from "./workspace.ts";

export interface TestCertificates {
  /** The CA's certificate (PEM): what --ca-file names. */
  caFile: string;
  /** The server's certificate and private key (PEM), signed by the CA. */
  certFile: string;
  keyFile: string;
  ca: string;
  cert: string;
  key: string;
}

/** Whether `openssl` is here to make them: for describe.skipIf. */
export const withoutOpenssl = (): boolean => Bun.which("openssl") === null;

let made: TestCertificates | null = null;

export function testCertificates(): TestCertificates {
  made ??= makeCertificates(tempFolder("tls"));
  return made;
}

function makeCertificates(dir: string): TestCertificates {
  const at = (name: string) => join(dir, name);
  writeFileSync(at("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", at("ca.key"), "-out", at("ca.pem"), "-days", "2", "-subj", "/CN=glassbox test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", at("server.key"), "-out", at("server.csr"), "-subj", "/CN=127.0.0.1");
  openssl("x509", "-req", "-in", at("server.csr"), "-CA", at("ca.pem"), "-CAkey", at("ca.key"), "-CAcreateserial", "-out", at("server.pem"), "-days", "2", "-extfile", at("server.ext"));
  const text = (name: string) => readFileSync(at(name), "utf8");
  return { caFile: at("ca.pem"), certFile: at("server.pem"), keyFile: at("server.key"), ca: text("ca.pem"), cert: text("server.pem"), key: text("server.key") };
}

function openssl(...args: string[]): void {
  const run = Bun.spawnSync(["openssl", ...args], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr.toString()}`);
}
