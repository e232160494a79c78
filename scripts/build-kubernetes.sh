#!/usr/bin/env bash
# Builds the real Kubernetes control plane the integration tests run: kube-apiserver,
# kube-controller-manager, kube-scheduler and kubectl from k8s.io/kubernetes v1.37.2 (its staging
# modules replaced by their v0.37.2 releases) and the etcd server that release requires (v3.7.0),
# all from the Go module proxy with the machine's Go (1.26). Binaries go to
#   ${GPUSHARE_KUBERNETES_DIR:-$HOME/.cache/gpushare/kubernetes/v1.37.2}
# and a stamp file names the go.sum they were built from, so a second run with nothing changed
# returns at once. Prints each binary's build time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="${here}/kubernetes"
version="v1.37.2"
out="${GPUSHARE_KUBERNETES_DIR:-${HOME}/.cache/gpushare/kubernetes/${version}}"
stamp="${out}/.built-from"
want="$(cat "${module}/go.sum" "${module}/go.mod" "$0" | sha256sum | cut -d' ' -f1)"

if [ -f "${stamp}" ] && [ "$(cat "${stamp}")" = "${want}" ]; then
  echo "kubernetes ${version} components are up to date in ${out}"
  exit 0
fi

if ! command -v go >/dev/null; then
  echo "build-kubernetes: the go command is missing (Go 1.26 or newer builds the components)" >&2
  exit 1
fi

mkdir -p "${out}"
rm -f "${stamp}"
cd "${module}"
export GOFLAGS=-mod=readonly
export CGO_ENABLED=0
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${version} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 -X k8s.io/client-go/pkg/version.gitVersion=${version}"
go mod download
build() {
  local name=$1 pkg=$2 t0=$SECONDS
  go build -trimpath -ldflags="${ldflags}" -o "${out}/${name}.tmp" "${pkg}"
  mv "${out}/${name}.tmp" "${out}/${name}"
  echo "built ${name} in $((SECONDS - t0)) s"
}
build etcd ./etcd
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
build kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
build kubectl k8s.io/kubernetes/cmd/kubectl
echo "${want}" > "${stamp}"
"${out}/kube-apiserver" --version
"${out}/etcd" --version | sed -n 1p
