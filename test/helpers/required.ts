/**
 * Whether this run insists on a tool the environment may lack: .ci/run installs tmux, qemu, wine,
 * chromium, a llama-server and a mountable tmpfs, then sets GLASSBOX_REQUIRE_<NAME>=1, so the tests
 * that need one fail where it is missing instead of skipping, and a green run means they ran.
 */
export function required(name: string): boolean {
  return process.env[`GLASSBOX_REQUIRE_${name.toUpperCase()}`] === "1";
}
