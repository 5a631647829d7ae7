/**
 * Model profiles (src/session/profile.ts): where they are kept, keyed by the model's identity;
 * their settings laid under glassbox.json and the command line; a broken one said clearly.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { profileFor, profilePath, profilesFolder, readProfile, saveProfile, type Profile } from "../../src/session/profile.ts";
import { underConfig } from "../../src/session/config.ts";
import { openSession } from "../../src/session/session.ts";
import { startRun } from "../../src/session/start-run.ts";
import { parseCli } from "../../src/cli/args.ts";
import { UsageError } from "../../src/protocol/usage-error.ts";
import { scriptFile } from "../helpers/cli.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";

const profileOf = (model: string, settings: Record<string, unknown>): Profile => ({
  version: 1,
  identity: { server: "scripted", model },
  settings,
  traits: [{ name: "loops", detail: "2 stall notes", fix: null }],
  created: "2026-12-06T14:00:00.000Z",
});

describe("where profiles are kept", () => {
  test("$XDG_CONFIG_HOME/glassbox/profiles, else ~/.config/glassbox/profiles", () => {
    expect(profilesFolder({ XDG_CONFIG_HOME: "/x/cfg", HOME: "/home/me" })).toBe("/x/cfg/glassbox/profiles");
    expect(profilesFolder({ HOME: "/home/me" })).toBe("/home/me/.config/glassbox/profiles");
  });

  test("one file per identity: another chat template or file digest is another profile", () => {
    const env = { XDG_CONFIG_HOME: "/cfg" };
    const a = profilePath({ server: "llama.cpp", model: "/models/qwen.gguf", chat_template: "aaaa" }, env);
    expect(a).toMatch(/^\/cfg\/glassbox\/profiles\/qwen\.gguf-[0-9a-f]{12}\.json$/);
    expect(profilePath({ server: "llama.cpp", model: "/models/qwen.gguf", chat_template: "bbbb" }, env)).not.toBe(a);
    expect(profilePath({ server: "llama.cpp", model: "/models/qwen.gguf", chat_template: "aaaa" }, env)).toBe(a);
  });

  test("saved and read back by identity; none is null", () => {
    const env = { XDG_CONFIG_HOME: tempFolder("profile-cfg") };
    const profile = profileOf("/m/a.json", { "model_options.max_tokens": 4096 });
    const path = saveProfile(profile, env);
    expect(readProfile(profile.identity as never, env)).toEqual({ path, profile });
    expect(readProfile({ server: "scripted", model: "/m/b.json" }, env)).toBeNull();
  });

  test("a profile folder that cannot be written is a usage error saying what to do", () => {
    const blocked = join(tempFolder("profile-cfg"), "file");
    writeFileSync(blocked, "not a folder");
    expect(() => saveProfile(profileOf("/m/a.json", {}), { XDG_CONFIG_HOME: blocked })).toThrow(/cannot write the model profile .*set XDG_CONFIG_HOME to one that is/);
  });

  test("a file that is not a profile is a usage error naming it and what to do", () => {
    const env = { XDG_CONFIG_HOME: tempFolder("profile-cfg") };
    const identity = { server: "scripted", model: "/m/a.json" };
    mkdirSync(profilesFolder(env), { recursive: true });
    writeFileSync(profilePath(identity, env), "{ not json");
    expect(() => readProfile(identity, env)).toThrow(UsageError);
    expect(() => readProfile(identity, env)).toThrow(/is not valid JSON .*delete it, or run glassbox tune again/);
    writeFileSync(profilePath(identity, env), JSON.stringify({ ...profileOf("/m/a.json", {}), settings: "fast" }));
    expect(() => readProfile(identity, env)).toThrow(/settings/);
  });
});

describe("precedence: glassbox.json and the command line win over the profile", () => {
  test("a key path the config file sets keeps the file's value; the others are applied and listed", () => {
    const { raw, applied } = underConfig({ model_options: { max_tokens: 2000 } }, { "model_options.max_tokens": 4096, "model_options.temperature": 0, text_tool_calls: false });
    expect(raw).toEqual({ model_options: { max_tokens: 2000, temperature: 0 }, text_tool_calls: false });
    expect(applied).toEqual({ "model_options.temperature": 0, text_tool_calls: false });
  });

  test("a session applies the profile under the config; --text-tool-calls and --limit take theirs back", () => {
    const ws = makeWorkspace();
    const spec = scriptFile([]);
    const found = { path: "/p.json", profile: profileOf("x", { text_tool_calls: false, "limits.max_steps": 3, "components.loose_edits": false }) };
    const plain = openSession(parseCli(["run", "--model", spec, "--workspace", ws.root, "t"]), undefined, undefined, { profile: found });
    expect(plain.config.text_tool_calls).toBe(false);
    expect(plain.config.components.loose_edits).toBe(false);
    expect(plain.limits.max_steps).toBe(3);
    expect(plain.profile).toEqual({ path: "/p.json", settings: { text_tool_calls: false, "limits.max_steps": 3, "components.loose_edits": false } });
    const flags = openSession(parseCli(["run", "--model", spec, "--workspace", ws.root, "--text-tool-calls", "--limit", "max_steps=7", "t"]), undefined, undefined, { profile: found });
    expect(flags.limits.max_steps).toBe(7);
    expect(flags.profile).toEqual({ path: "/p.json", settings: { "components.loose_edits": false } });
    expect(openSession(parseCli(["run", "--model", spec, "--workspace", ws.root, "t"])).profile).toBeNull();
  });

  test("run_start carries the profile applied, or null", async () => {
    const ws = makeWorkspace();
    const found = { path: "/p.json", profile: profileOf("x", { "model_options.temperature": 0 }) };
    const runStart = async (profile: typeof found | null) => {
      const session = openSession(parseCli(["run", "--model", scriptFile([{ content: "hello" }]), "--workspace", ws.root, "t"]), undefined, undefined, { profile });
      for await (const event of startRun(session, "say hello").events) if (event.kind === "run_start") return event;
    };
    expect((await runStart(found))!.profile).toEqual({ path: "/p.json", settings: { "model_options.temperature": 0 } });
    expect((await runStart(null))!.profile).toBeNull();
  });

  test("a profile whose settings the config cannot take is a usage error naming the profile", () => {
    const ws = tempFolder("profile-ws");
    const found = { path: "/p.json", profile: profileOf("x", { "model_options.max_tokens": "lots" }) };
    expect(() => openSession(parseCli(["run", "--model", scriptFile([]), "--workspace", ws, "t"]), undefined, undefined, { profile: found })).toThrow(/^the model profile \/p\.json \(delete it, or run glassbox tune again; --no-profile runs without it\): "model_options\.max_tokens"/);
  });
});

describe("profileFor: the model the command line names, identified, its profile found", () => {
  test("found by the model's identity; --no-profile and no model give none", async () => {
    const env = { XDG_CONFIG_HOME: tempFolder("profile-cfg") };
    const spec = scriptFile([]);
    const path = saveProfile(profileOf(spec.slice("scripted:".length), { "model_options.max_tokens": 4096 }), env);
    const ws = tempFolder("profile-ws");
    expect((await profileFor({ model: spec, workspace: ws }, env))?.path).toBe(path);
    expect(await profileFor({ model: spec, workspace: ws, noProfile: true }, env)).toBeNull();
    expect(await profileFor({ workspace: ws }, env)).toBeNull();
    expect(await profileFor({ model: scriptFile([]), workspace: ws }, env)).toBeNull();
    // A server that does not answer: no profile, the run says what is wrong.
    expect(await profileFor({ model: "llamacpp:http://127.0.0.1:9", workspace: ws }, env)).toBeNull();
    writeFileSync(join(ws, "glassbox.json"), JSON.stringify({ model: spec }));
    expect((await profileFor({ workspace: ws }, env))?.path).toBe(path);
  });
});

describe("another model chosen in the session (the TUI's picker, discovery) brings its own profile", () => {
  const names = (session: ReturnType<typeof openSession>) => session.checkpoint.declarations().map((tool) => tool.name);

  test("its settings replace the first model's: config, limits, tools and run_start; none drops them", async () => {
    const ws = makeWorkspace();
    const first = { path: "/a.json", profile: profileOf("a", { "limits.max_steps": 3 }) };
    const session = openSession(parseCli(["run", "--model", scriptFile([]), "--workspace", ws.root, "t"]), undefined, undefined, { profile: first });
    expect(session.limits.max_steps).toBe(3);
    expect(names(session)).toContain("explore");

    const second = { path: "/b.json", profile: profileOf("b", { "components.explore": false, "model_options.max_tokens": 4096 }) };
    const spec = scriptFile([{ content: "hello" }]);
    session.chooseModel(spec, undefined, second);
    expect(session.spec).toBe(spec);
    expect(session.limits.max_steps).not.toBe(3);
    expect(session.config.model_options.max_tokens).toBe(4096);
    expect(names(session)).not.toContain("explore");
    expect(session.profile).toEqual({ path: "/b.json", settings: { "components.explore": false, "model_options.max_tokens": 4096 } });
    for await (const event of startRun(session, "say hello").events) if (event.kind === "run_start") expect(event.profile).toEqual(session.profile);

    session.chooseModel(scriptFile([]), undefined, null);
    expect(session.profile).toBeNull();
    expect(session.config.model_options.max_tokens).not.toBe(4096);
    expect(names(session)).toContain("explore");
  });

  test("a profile the config cannot take is a usage error, and the session keeps its model and settings", () => {
    const ws = makeWorkspace();
    const spec = scriptFile([]);
    const session = openSession(parseCli(["run", "--model", spec, "--workspace", ws.root, "t"]), undefined, undefined, { profile: { path: "/a.json", profile: profileOf("a", { "limits.max_steps": 3 }) } });
    const model = session.model;
    const broken = { path: "/b.json", profile: profileOf("b", { "model_options.max_tokens": "lots" }) };
    expect(() => session.chooseModel(scriptFile([]), undefined, broken)).toThrow(/^the model profile \/b\.json \(delete it, or run glassbox tune again; --no-profile runs without it\): "model_options\.max_tokens"/);
    expect(session.spec).toBe(spec);
    expect(session.model).toBe(model);
    expect(session.limits.max_steps).toBe(3);
    expect(session.profile?.path).toBe("/a.json");
  });
});
