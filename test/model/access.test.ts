/**
 * How glassbox reaches a server on another machine (src/model/access.ts): the key that prints as
 * a placeholder wherever it becomes text, the header that is the one place it is read, the CAs
 * trusted besides the system's, and the lines a certificate failure or a refused key become,
 * checked against an HTTPS server under a CA made for the test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { inspect } from "node:util";
import { rootCertificates } from "node:tls";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApiKey, NO_ACCESS, certificateProblem, keyRefusal, readCaFile, requestHeaders, tlsOptions, type ServerAccess } from "../../src/model/access.ts";
import { fetchJson, ServerExchange } from "../../src/model/http.ts";
import { ModelError } from "../../src/protocol/model.ts";
import { testCertificates, withoutOpenssl } from "../helpers/tls.ts";
import { tempFolder } from "../helpers/workspace.ts";

const VALUE = "sk-access-test-9f8e7d6c5b";
const access = (overrides: Partial<ServerAccess> = {}): ServerAccess => ({ ...NO_ACCESS, key: new ApiKey(VALUE, "GLASSBOX_API_KEY"), ...overrides });

describe("the key", () => {
  test("prints as a placeholder however it becomes text; only reveal() and the header hold its value", () => {
    const key = new ApiKey(VALUE, "MY_KEY");
    const shown = [String(key), `${key}`, JSON.stringify({ key }), inspect(key), inspect({ nested: { key } }), Bun.inspect(key), new Error(`failed with ${key}`).message];
    for (const text of shown) expect(text).not.toContain(VALUE);
    expect(String(key)).toBe("[api key]");
    expect(JSON.stringify({ key })).toBe('{"key":"[api key]"}');
    expect(key.reveal()).toBe(VALUE);
    expect(key.variable).toBe("MY_KEY");
    expect(requestHeaders(access())).toEqual({ Authorization: `Bearer ${VALUE}` });
    expect(requestHeaders(NO_ACCESS)).toEqual({});
  });

  test("401 and 403 name the status and the variable: to set when none was sent, to check when one was", () => {
    expect(keyRefusal(401, NO_ACCESS)).toBe("the server refused the key (HTTP 401): set GLASSBOX_API_KEY");
    expect(keyRefusal(403, { ...NO_ACCESS, keyVariable: "VLLM_KEY" })).toBe("the server refused the key (HTTP 403): set VLLM_KEY");
    expect(keyRefusal(401, access({ key: new ApiKey(VALUE, "OPENAI_API_KEY") }))).toBe("the server refused the key (HTTP 401): check the key in OPENAI_API_KEY");
    for (const status of [200, 400, 404, 500]) expect(keyRefusal(status, access())).toBeNull();
  });
});

describe("the CAs trusted", () => {
  test("an extra CA is added to the system's, not put in their place; --insecure-tls checks nothing; neither: fetch's default", () => {
    expect(tlsOptions(NO_ACCESS)).toBeUndefined();
    const extra = tlsOptions({ ...NO_ACCESS, extraCa: ["PEM"] })!;
    expect(extra.ca).toHaveLength(rootCertificates.length + 1);
    expect(extra.ca!.at(-1)).toBe("PEM");
    expect(extra.ca).toEqual(expect.arrayContaining([...rootCertificates]));
    expect(tlsOptions({ ...NO_ACCESS, insecureTls: true })).toEqual({ rejectUnauthorized: false });
  });

  test("a CA file: every certificate in it; a file holding none is refused with what it lacks", () => {
    const dir = tempFolder("ca-file");
    const two = join(dir, "two.pem");
    const pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----";
    writeFileSync(two, `first\n${pem}\nsecond\n${pem}\n`);
    expect(readCaFile(two)).toEqual([pem, pem]);
    const none = join(dir, "key.pem");
    writeFileSync(none, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
    expect(() => readCaFile(none)).toThrow("it holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  });

  test("certificate failures in words, each naming --ca-file; anything else is not one", () => {
    const problem = (code: string) => certificateProblem("https://gpu-box:8000/v1/models", Object.assign(new Error("x"), { code }));
    expect(problem("UNABLE_TO_VERIFY_LEAF_SIGNATURE")).toBe(
      'cannot reach https://gpu-box:8000/v1/models over TLS: its certificate is signed by a CA this machine does not trust (UNABLE_TO_VERIFY_LEAF_SIGNATURE); trust its CA with --ca-file FILE (or "ca_file" in glassbox.json)',
    );
    expect(problem("CERT_HAS_EXPIRED")).toContain("its certificate has expired");
    expect(problem("ERR_TLS_CERT_ALTNAME_INVALID")).toContain("its certificate is not for this host name");
    expect(problem("ECONNREFUSED")).toBeNull();
  });
});

describe.skipIf(withoutOpenssl())("an HTTPS server under a private CA", () => {
  let server: ReturnType<typeof Bun.serve>;
  let url: string;
  const seen: Array<string | null> = [];
  beforeAll(() => {
    const { cert, key } = testCertificates();
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert, key },
      fetch(request) {
        seen.push(request.headers.get("authorization"));
        return Response.json({ ok: true });
      },
    });
    url = `https://127.0.0.1:${server.port}/props`;
  });
  afterAll(() => server.stop(true));

  const ask = (reach: ServerAccess) => fetchJson(url, undefined, new AbortController().signal, 5000, reach);

  test("its CA unknown: one line naming the problem and --ca-file", async () => {
    const error = await ask(access()).catch((caught) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toMatch(/^cannot reach https:\/\/127\.0\.0\.1:\d+\/props over TLS: its certificate is signed by a CA this machine does not trust \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); trust its CA with --ca-file FILE/);
    expect(error.message).not.toContain(VALUE);
  });

  test("its CA given (--ca-file): answered, the key sent as a bearer token", async () => {
    const answer = await ask(access({ extraCa: readCaFile(testCertificates().caFile) }));
    expect(answer).toEqual({ status: 200, json: { ok: true }, excerpt: "" });
    expect(seen.at(-1)).toBe(`Bearer ${VALUE}`);
  });

  test("--insecure-tls: answered without checking the certificate", async () => {
    expect((await ask(access({ insecureTls: true }))).status).toBe(200);
  });

  test("a reply's exchange (not only the small endpoints) trusts the extra CA too", async () => {
    const exchange = new ServerExchange(url.replace("/props", "/v1/chat/completions"), 5000, new AbortController().signal, access({ extraCa: [testCertificates().ca] }));
    const response = await exchange.send({ method: "POST", body: "{}", reply: true });
    expect(await exchange.json(response)).toEqual({ ok: true });
  });
});
