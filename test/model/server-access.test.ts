/**
 * Where the key, the extra CA and --insecure-tls come from (src/model/server-access.ts): the key
 * from the environment only, --insecure-tls from the command line only, and a key written into a
 * config file refused without being echoed.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigSchema, loadConfig, type Config } from "../../src/session/config.ts";
import { keyLine, serverAccess } from "../../src/model/server-access.ts";
import { glassbox } from "../helpers/cli.ts";
import { usageError } from "../helpers/usage-error.ts";
import { testCertificates, withoutOpenssl } from "../helpers/tls.ts";
import { tempFolder } from "../helpers/workspace.ts";

const config = (fields: Record<string, unknown> = {}): Config => ConfigSchema.parse(fields);
const KEY = "sk-server-access-0a1b2c3d4e";

describe("the key", () => {
  test("GLASSBOX_API_KEY by default, for every kind of server", () => {
    const access = serverAccess({}, config(), false, { GLASSBOX_API_KEY: KEY });
    expect(access.key!.reveal()).toBe(KEY);
    expect(access.key!.variable).toBe("GLASSBOX_API_KEY");
    expect(keyLine(access)).toBe("key: set (from GLASSBOX_API_KEY)");
  });

  test("--api-key-env NAME over the config's api_key_env, over GLASSBOX_API_KEY", () => {
    const env = { GLASSBOX_API_KEY: "sk-default-00000000", FROM_CONFIG: "sk-config-00000000", FROM_FLAG: KEY };
    expect(serverAccess({ apiKeyEnv: "FROM_FLAG" }, config({ api_key_env: "FROM_CONFIG" }), false, env).key!.reveal()).toBe(KEY);
    expect(serverAccess({}, config({ api_key_env: "FROM_CONFIG" }), false, env).key!.variable).toBe("FROM_CONFIG");
  });

  test("a named variable that is not set is a usage error naming it and the option", () => {
    expect(usageError(() => serverAccess({ apiKeyEnv: "NOT_SET" }, config(), false, {})).message).toBe("--api-key-env names NOT_SET, which is not set in the environment; set it, or drop the option");
    expect(usageError(() => serverAccess({}, config({ api_key_env: "NOT_SET" }), false, {})).message).toContain("api_key_env names NOT_SET");
  });

  test("OPENAI_API_KEY is read for openai: only, and only when GLASSBOX_API_KEY is not set", () => {
    expect(serverAccess({}, config(), true, { OPENAI_API_KEY: KEY }).key!.variable).toBe("OPENAI_API_KEY");
    expect(serverAccess({}, config(), false, { OPENAI_API_KEY: KEY }).key).toBeNull();
    expect(serverAccess({}, config(), true, { OPENAI_API_KEY: KEY, GLASSBOX_API_KEY: "sk-glassbox-00000000" }).key!.variable).toBe("GLASSBOX_API_KEY");
  });

  test("no key: none sent, and doctor says which variable would carry one", () => {
    const access = serverAccess({}, config(), false, {});
    expect(access.key).toBeNull();
    expect(keyLine(access)).toBe("key: none (set GLASSBOX_API_KEY if the server needs one)");
  });

  test('"api_key" in a config file: exit 2 saying to use a variable, the value not echoed', async () => {
    const dir = tempFolder("config-key");
    writeFileSync(join(dir, "glassbox.json"), JSON.stringify({ api_key: KEY }));
    expect(usageError(() => loadConfig(undefined, dir)).message).toContain('sets "api_key": glassbox reads keys only from the environment');
    const run = await glassbox(["run", "--workspace", dir, "--model", "openai:http://127.0.0.1:9/v1", "hello"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("set GLASSBOX_API_KEY");
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });
});

describe("TLS", () => {
  test("--insecure-tls comes from the flag alone: no config key turns it on", () => {
    expect(serverAccess({}, config(), false, {}).insecureTls).toBe(false);
    expect(serverAccess({ insecureTls: true }, config(), false, {}).insecureTls).toBe(true);
    expect(() => config({ insecure_tls: true })).toThrow();
  });

  test.skipIf(withoutOpenssl())("--ca-file over the config's ca_file; its certificates are trusted besides the system's", () => {
    const { caFile, ca } = testCertificates();
    expect(serverAccess({ caFile }, config({ ca_file: "/no/such.pem" }), false, {}).extraCa).toEqual([ca.trim()]);
    expect(serverAccess({}, config({ ca_file: caFile }), false, {}).extraCa).toEqual([ca.trim()]);
    expect(serverAccess({}, config(), false, {}).extraCa).toEqual([]);
  });

  test("a CA file that cannot be read, or holds no certificate: a usage error naming the option and the file", () => {
    expect(usageError(() => serverAccess({ caFile: "/no/such.pem" }, config(), false, {})).message).toBe(
      "--ca-file /no/such.pem: cannot read it (ENOENT); give the PEM file of the CA that signed the server's certificate",
    );
    const empty = join(tempFolder("ca"), "empty.pem");
    writeFileSync(empty, "not a certificate\n");
    expect(usageError(() => serverAccess({}, config({ ca_file: empty }), false, {})).message).toBe(
      `ca_file ${empty}: it holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the PEM file of the CA that signed the server's certificate`,
    );
  });
});
