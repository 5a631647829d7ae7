/** Where Ollama listens when OLLAMA_HOST is unset. */
export const DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434";
const DEFAULT_OLLAMA_PORT = "11434";

/**
 * The base URL an OLLAMA_HOST value means, read the way Ollama's own client reads it
 * (envconfig.Host): quotes and spaces trimmed; no scheme means http; a bare host gets port
 * 11434, but `http://host` gets 80 and `https://host` 443; `:PORT` is this machine; a port that
 * is not a number from 0 to 65535 falls back to the default; a path is kept (a proxy's prefix).
 * So a value that works for `ollama list` works for glassbox.
 */
export function ollamaHostUrl(value: string | undefined): string {
  const text = (value ?? "").trim().replace(/^["']+|["']+$/g, "").trim();
  if (!text) return DEFAULT_OLLAMA_URL;
  let scheme = "http";
  let hostport = text;
  let defaultPort = DEFAULT_OLLAMA_PORT;
  const at = text.indexOf("://");
  if (at === -1) {
    if (text === "ollama.com") [scheme, hostport] = ["https", "ollama.com:443"];
  } else {
    scheme = text.slice(0, at);
    hostport = text.slice(at + 3);
    if (scheme === "http") defaultPort = "80";
    if (scheme === "https") defaultPort = "443";
  }
  const slash = hostport.indexOf("/");
  const path = slash === -1 ? "" : hostport.slice(slash + 1);
  if (slash !== -1) hostport = hostport.slice(0, slash);
  let { host, port } = splitHostPort(hostport) ?? { host: hostport.replace(/^\[|\]$/g, ""), port: defaultPort };
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) port = defaultPort;
  // ":11434" is this machine, as it is for Ollama (Go dials an empty host as the local system).
  if (!host) host = "127.0.0.1";
  // Go's JoinHostPort: a host with a colon (an IPv6 literal) goes in brackets.
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return `${scheme}://${shownHost}:${port}${path ? `/${path}` : ""}`.replace(/\/+$/, "");
}

/** Go's net.SplitHostPort: `host:port`, `[v6]:port`, `:port`; null where Go reports an error. */
function splitHostPort(hostport: string): { host: string; port: string } | null {
  if (hostport.startsWith("[")) {
    const end = hostport.indexOf("]");
    if (end === -1 || hostport[end + 1] !== ":") return null;
    return { host: hostport.slice(1, end), port: hostport.slice(end + 2) };
  }
  const colon = hostport.lastIndexOf(":");
  if (colon === -1 || hostport.slice(0, colon).includes(":")) return null;
  return { host: hostport.slice(0, colon), port: hostport.slice(colon + 1) };
}
