#!/usr/bin/env bash
# Builds Helm, which the chart's tests (test/kubernetes/helm*.test.ts) drive: helm.sh/helm/v4
# v4.3.2 from the Go module proxy with the machine's Go (1.26), from its own module folder
# (scripts/helm: go.mod, go.sum) so its Kubernetes client modules do not touch scripts/kubernetes.
# The binary goes to
#   ${GPUSHARE_HELM_DIR:-$HOME/.cache/gpushare/helm/v4.3.2}/helm
# and a stamp file names the go.sum it was built from, so a second run with nothing changed returns
# at once. Prints the build time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="${here}/helm"
version="v4.3.2"
out="${GPUSHARE_HELM_DIR:-${HOME}/.cache/gpushare/helm/${version}}"
stamp="${out}/.built-from"
want="$(cat "${module}/go.sum" "${module}/go.mod" "$0" | sha256sum | cut -d' ' -f1)"

if [ -f "${stamp}" ] && [ "$(cat "${stamp}")" = "${want}" ]; then
  echo "helm ${version} is up to date in ${out}"
  exit 0
fi

if ! command -v go >/dev/null; then
  echo "build-helm: the go command is missing (Go 1.26 or newer builds Helm)" >&2
  exit 1
fi

mkdir -p "${out}"
rm -f "${stamp}"
cd "${module}"
export GOFLAGS=-mod=readonly
export CGO_ENABLED=0
ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=${version} -X helm.sh/helm/v4/internal/version.gitTreeState=clean"
t0=$SECONDS
go mod download
go build -trimpath -ldflags="${ldflags}" -o "${out}/helm.tmp" helm.sh/helm/v4/cmd/helm
mv "${out}/helm.tmp" "${out}/helm"
echo "built helm in $((SECONDS - t0)) s"
echo "${want}" > "${stamp}"
"${out}/helm" version --short
