#!/usr/bin/env bash
# Build the Debian package of the desktop app: release builds of `inbox-desktop` and the `inbox`
# CLI, bundled by the Tauri bundler (npm @tauri-apps/cli, pinned in ui/package.json) into
# $ARTIFACTS_DIR/interactions-inbox_<version>_amd64.deb. Nothing is downloaded while bundling:
# the .deb target needs only what is on the machine. See docs/install.md.
#
#   scripts/package.sh    prints the path of the .deb on its last line
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT
INBOX_SKIP_TAURI_DRIVER=1 "$REPO_ROOT/scripts/setup.sh"
source "$REPO_ROOT/scripts/env.sh"
cd "$REPO_ROOT"

# The app embeds ui/dist at compile time. Rebuilt only when a UI input is newer: a rebuilt dist
# (new mtimes) makes cargo recompile the release app, minutes on a small machine.
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/public ui/index.html ui/package-lock.json ui/vite.config.* ui/tsconfig*.json \
    -newer ui/dist/index.html -print -quit 2>/dev/null)" ]; then
  echo "==> building the web UI (the app embeds ui/dist)" >&2
  (cd ui && npm run build) >&2
fi
# tauri/custom-protocol is what `tauri build` turns on: the app serves its embedded UI and is not
# a dev build. Both binaries in one cargo run so their shared crates are built once.
echo "==> release build of the desktop app and the inbox CLI" >&2
cargo build --release --locked -p inbox-desktop -p inbox-cli --features tauri/custom-protocol >&2

# The bundler takes the directory holding tauri.conf.json as the app's crate and reads its
# Cargo.toml [package]; ours sits at the repo root beside the workspace manifest. So it is given
# src-tauri/ with a copy of the root config whose relative paths are rebased there, removed after.
staged="$REPO_ROOT/src-tauri/tauri.conf.json"
trap 'rm -f "$staged"' EXIT
node -e '
  const fs = require("fs");
  const [from, to] = process.argv.slice(1);
  const config = JSON.parse(fs.readFileSync(from, "utf8"));
  config.build.frontendDist = "../" + config.build.frontendDist;
  config.bundle.icon = config.bundle.icon.map((icon) => "../" + icon);
  fs.writeFileSync(to, JSON.stringify(config, null, 2));
' tauri.conf.json "$staged"

# The CLI's place in the package is an absolute path into the build dir, so it is given here
# rather than in packaging/tauri.deb.conf.json.
cli_files="{\"bundle\":{\"linux\":{\"deb\":{\"files\":{\"/usr/bin/inbox\":\"$CARGO_TARGET_DIR/release/inbox\"}}}}}"
bundle_dir="$CARGO_TARGET_DIR/release/bundle/deb"
rm -rf "$bundle_dir"
echo "==> bundling the .deb" >&2
# --no-binary-patching: the patch only tells an updater which bundle it came from; we ship no
# updater, and the binary stays byte for byte what cargo built.
(cd src-tauri && "$REPO_ROOT/ui/node_modules/.bin/tauri" bundle --ci --no-sign --no-binary-patching \
  --bundles deb --config ../packaging/tauri.deb.conf.json --config "$cli_files") >&2

built=("$bundle_dir"/*.deb)
[ "${#built[@]}" = 1 ] && [ -f "${built[0]}" ] || { echo "expected one .deb in $bundle_dir" >&2; exit 1; }
package=$(dpkg-deb -f "${built[0]}" Package)
version=$(dpkg-deb -f "${built[0]}" Version)
arch=$(dpkg-deb -f "${built[0]}" Architecture)
# The bundler names the file after the product name (with a space); give it the Debian name.
out="$ARTIFACTS_DIR/${package}_${version}_${arch}.deb"
cp "${built[0]}" "$out"
echo "==> $(du -h "$out" | cut -f1) package; install it with: sudo apt install $out" >&2
echo "$out"
