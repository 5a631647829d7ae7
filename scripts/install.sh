#!/bin/sh
# Installs the glassbox binary for this machine from a GitHub release:
#
#   curl -fsSL https://github.com/glassbox-agent/glassbox/releases/latest/download/install.sh | sh
#
# It picks the file for this OS and CPU (Apple Silicon under Rosetta gets the native arm64 file;
# Linux gets the musl build on musl systems and the baseline build on x64 CPUs without AVX2),
# downloads it with the release's SHA256SUMS, refuses it unless its checksum matches, and
# installs it as `glassbox`. Nothing is left behind when anything fails.
#
# Settings (environment):
#   GLASSBOX_VERSION      a release such as 0.2.0 (default: the latest release)
#   GLASSBOX_RELEASE_URL  the folder that holds the release files and SHA256SUMS (a mirror, or a
#                         local server); overrides GLASSBOX_VERSION's GitHub address
#   GLASSBOX_INSTALL_DIR  where to install (default: ~/.local/bin)
set -eu

REPO="glassbox-agent/glassbox"
CPUINFO="${GLASSBOX_CPUINFO:-/proc/cpuinfo}" # a test hook: which CPU flags to read

say() { printf 'glassbox install: %s\n' "$*"; }
fail() { printf 'glassbox install: %s\n' "$*" >&2; exit 1; }

# ---- which file -----------------------------------------------------------------------------
os=$(uname -s)
arch=$(uname -m)
case "$arch" in
  x86_64 | amd64) arch=x64 ;;
  arm64 | aarch64) arch=arm64 ;;
  *) fail "no glassbox build for the CPU '$arch'; builds exist for x86-64 and arm64 (see docs/platforms.md)" ;;
esac
suffix=""
case "$os" in
  Darwin)
    os=darwin
    # A shell under Rosetta reports x86_64 on Apple Silicon: take the native build instead.
    if [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
      arch=arm64
      say "Rosetta detected: installing the native Apple Silicon build"
    fi
    ;;
  Linux)
    os=linux
    if (ldd --version 2>&1 || true) | grep -qi musl; then
      [ "$arch" = x64 ] || fail "no glassbox build for musl on $arch; builds exist for musl on x86-64 only (glibc: x86-64 and arm64)"
      suffix="-musl"
    elif [ "$arch" = x64 ] && [ -r "$CPUINFO" ] && ! grep -qw avx2 "$CPUINFO"; then
      suffix="-baseline"
    fi
    ;;
  MINGW* | MSYS* | CYGWIN*)
    os=windows
    [ "$arch" = x64 ] || fail "no glassbox build for Windows on $arch; the Windows build is x86-64"
    suffix=".exe"
    ;;
  *) fail "no glassbox build for the OS '$os'; builds exist for macOS, Linux and Windows" ;;
esac
file="glassbox-$os-$arch$suffix"
name="glassbox"
[ "$os" = windows ] && name="glassbox.exe"

if [ -n "${GLASSBOX_RELEASE_URL:-}" ]; then
  base="${GLASSBOX_RELEASE_URL%/}"
elif [ -n "${GLASSBOX_VERSION:-}" ]; then
  base="https://github.com/$REPO/releases/download/v${GLASSBOX_VERSION#v}"
else
  base="https://github.com/$REPO/releases/latest/download"
fi
dir="${GLASSBOX_INSTALL_DIR:-$HOME/.local/bin}"

# ---- download into a private temp folder, removed whatever happens ----------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/glassbox-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fetch() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    fail "neither curl nor wget is installed; install one of them, or download $file and SHA256SUMS by hand"
  fi
}

say "downloading $base/$file"
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || fail "cannot download $base/SHA256SUMS; check the address (GLASSBOX_RELEASE_URL, GLASSBOX_VERSION) and your connection"
fetch "$base/$file" "$tmp/$file" || fail "cannot download $base/$file; check the address (GLASSBOX_RELEASE_URL, GLASSBOX_VERSION) and your connection"

# ---- verify ---------------------------------------------------------------------------------
expected=$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/SHA256SUMS")
[ -n "$expected" ] || fail "SHA256SUMS has no line for $file; nothing was installed"
if command -v sha256sum >/dev/null 2>&1; then
  actual=$(sha256sum "$tmp/$file" | awk '{ print $1 }')
elif command -v shasum >/dev/null 2>&1; then
  actual=$(shasum -a 256 "$tmp/$file" | awk '{ print $1 }')
else
  fail "neither sha256sum nor shasum is installed, so the download cannot be checked; nothing was installed"
fi
[ "$actual" = "$expected" ] || fail "checksum mismatch for $file: SHA256SUMS says $expected, the download is $actual; nothing was installed (try again, or report it)"

# ---- install: a rename within the target folder, so a half-copied binary is never on PATH ----------
mkdir -p "$dir" || fail "cannot create $dir; set GLASSBOX_INSTALL_DIR to a folder you can write"
cp "$tmp/$file" "$dir/.$name.new" || { rm -f "$dir/.$name.new"; fail "cannot write to $dir; set GLASSBOX_INSTALL_DIR to a folder you can write"; }
chmod 755 "$dir/.$name.new"
# It must start here before it replaces anything: a binary that cannot run is no install.
if ! version=$("$dir/.$name.new" --version 2>"$tmp/start-error"); then
  rm -f "$dir/.$name.new"
  hint=""
  [ "$suffix" = "-musl" ] && hint=" (on Alpine: apk add libstdc++ libgcc)"
  fail "$file does not start on this machine: $(head -n 1 "$tmp/start-error")$hint; nothing was installed"
fi
mv -f "$dir/.$name.new" "$dir/$name"
say "installed $version to $dir/$name"

case ":$PATH:" in
  *":$dir:"*) ;;
  *)
    say "$dir is not on your PATH; add it with:"
    say "  echo 'export PATH=\"$dir:\$PATH\"' >> ~/.profile   (zsh: ~/.zshrc), then open a new terminal"
    ;;
esac
