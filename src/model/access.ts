import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { registerSecret } from "../trace/redact.ts";

/**
 * How glassbox reaches a model server that is not its own: the key it sends and the TLS it
 * trusts. The key is an ApiKey, which prints as a placeholder wherever it is turned into text
 * (a log line, JSON, an error, the inspector); only requestHeaders reads its value.
 */

const SHOWN = "[api key]";

export class ApiKey {
  readonly #value: string;

  /** `variable`: the environment variable it came from, the only thing about it glassbox says. */
  constructor(value: string, readonly variable: string) {
    this.#value = value;
    registerSecret(value);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return SHOWN;
  }

  toJSON(): string {
    return SHOWN;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return SHOWN;
  }
}

export interface ServerAccess {
  key: ApiKey | null;
  /** The variable a person sets to send a key: the one named by --api-key-env, else GLASSBOX_API_KEY. */
  keyVariable: string;
  /** PEM certificates trusted besides the system's (--ca-file / ca_file). */
  extraCa: string[];
  /** --insecure-tls: no certificate is checked. Only ever from the explicit flag. */
  insecureTls: boolean;
}

/** What --insecure-tls costs, said when a headless run starts with it; the TUI's status line shows INSECURE_TLS_BADGE while it is on. */
export const INSECURE_TLS_WARNING = "--insecure-tls is on: the server's certificate is not checked, so anyone between here and the server can read the key and the code sent; trust its CA with --ca-file FILE instead";
export const INSECURE_TLS_BADGE = "insecure TLS";

export const NO_ACCESS: ServerAccess = { key: null, keyVariable: "GLASSBOX_API_KEY", extraCa: [], insecureTls: false };

/** The Authorization header, when there is a key. */
export function requestHeaders(access: ServerAccess): Record<string, string> {
  return access.key ? { Authorization: `Bearer ${access.key.reveal()}` } : {};
}

/** fetch's tls option: the system's CAs with the extra ones added (a `ca` list replaces the default), or no checking. */
export function tlsOptions(access: ServerAccess): { ca?: string[]; rejectUnauthorized?: boolean } | undefined {
  if (access.insecureTls) return { rejectUnauthorized: false };
  if (access.extraCa.length) return { ca: [...rootCertificates, ...access.extraCa] };
  return undefined;
}

/** A CA file's certificates; a file that cannot be read or holds none is the person's mistake, said by the caller. */
export function readCaFile(path: string): string[] {
  const text = readFileSync(path, "utf8");
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!certificates.length) throw new Error("it holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  return certificates;
}

/** The TLS failures fetch reports by code, in words, each ending with what to do. */
const CERTIFICATE_ERRORS: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "its certificate is signed by a CA this machine does not trust",
  UNABLE_TO_GET_ISSUER_CERT: "its certificate is signed by a CA this machine does not trust",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "its certificate is signed by a CA this machine does not trust",
  SELF_SIGNED_CERT_IN_CHAIN: "its certificate chain ends in a self-signed CA this machine does not trust",
  DEPTH_ZERO_SELF_SIGNED_CERT: "its certificate is self-signed",
  CERT_HAS_EXPIRED: "its certificate has expired",
  CERT_NOT_YET_VALID: "its certificate is not valid yet (check this machine's clock)",
  ERR_TLS_CERT_ALTNAME_INVALID: "its certificate is not for this host name",
};

/** A certificate failure as one line naming the problem and the option, or null when the error is something else. */
export function certificateProblem(url: string, error: unknown): string | null {
  const code = (error as { code?: string }).code ?? "";
  const problem = CERTIFICATE_ERRORS[code];
  if (!problem) return null;
  return `cannot reach ${url} over TLS: ${problem} (${code}); trust its CA with --ca-file FILE (or "ca_file" in glassbox.json)`;
}

/** HTTP 401/403 in words, naming the variable to set (no key sent) or to check (a key sent); null for other statuses. */
export function keyRefusal(status: number, access: ServerAccess): string | null {
  if (status !== 401 && status !== 403) return null;
  const variable = access.key?.variable ?? access.keyVariable;
  return `the server refused the key (HTTP ${status}): ${access.key ? `check the key in ${variable}` : `set ${variable}`}`;
}
