#!/usr/bin/env bash
# Builds what a real Kubernetes node of the integration tests runs, with nothing pulled from a
# container registry:
#   - kubelet v1.37.2, from the same Go module as the control plane (scripts/kubernetes);
#   - containerd v2.4.2, its runc shim (containerd-shim-runc-v2) and ctr, from the Go module
#     proxy (scripts/node; containerd reads CDI specs itself);
#   - pause, the pods' sandbox container (scripts/node/pause);
#   - runc, the CNI plugins (bridge, host-local, loopback) and a static busybox, extracted from
#     Debian's packages (runc, containernetworking-plugins, busybox-static) without installing them.
# Everything goes to
#   ${GPUSHARE_NODE_DIR:-$HOME/.cache/gpushare/node/v1.37.2}
# and a stamp file names the inputs it was built from, so a second run with nothing changed
# returns at once. Prints each part's build time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="v1.37.2"
containerd_version="v2.4.2"
debs=(runc containernetworking-plugins busybox-static)
out="${GPUSHARE_NODE_DIR:-${HOME}/.cache/gpushare/node/${version}}"
stamp="${out}/.built-from"
want="$(cat "${here}/kubernetes/go.sum" "${here}/kubernetes/go.mod" "${here}/node/go.sum" "${here}/node/go.mod" \
  "${here}/node/pause/main.go" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"

if [ -f "${stamp}" ] && [ "$(cat "${stamp}")" = "${want}" ]; then
  echo "node components are up to date in ${out}"
  exit 0
fi

for tool in go apt-get dpkg-deb; do
  if ! command -v "${tool}" >/dev/null; then
    echo "build-node: the ${tool} command is missing (Go 1.26 builds the components; apt-get and dpkg-deb fetch Debian's runc, CNI plugins and busybox)" >&2
    exit 1
  fi
done

mkdir -p "${out}/bin" "${out}/cni"
rm -f "${stamp}"
export GOFLAGS=-mod=readonly
export CGO_ENABLED=0
build() {
  local dir=$1 name=$2 pkg=$3 ldflags=$4 tags=${5:-} t0=$SECONDS
  (cd "${dir}" && go build -trimpath -tags "${tags}" -ldflags="-s -w ${ldflags}" -o "${out}/bin/${name}.tmp" "${pkg}")
  mv "${out}/bin/${name}.tmp" "${out}/bin/${name}"
  echo "built ${name} in $((SECONDS - t0)) s"
}

k8s_ldflags="-X k8s.io/component-base/version.gitVersion=${version} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37"
build "${here}/kubernetes" kubelet k8s.io/kubernetes/cmd/kubelet "${k8s_ldflags}"

# containerd's optional snapshotters that need cgo or kernel headers are left out; overlayfs and
# native remain.
ctd_tags="no_btrfs no_devmapper no_zfs no_aufs"
ctd_ldflags="-X github.com/containerd/containerd/v2/version.Version=${containerd_version}"
build "${here}/node" containerd github.com/containerd/containerd/v2/cmd/containerd "${ctd_ldflags}" "${ctd_tags}"
build "${here}/node" containerd-shim-runc-v2 github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 "${ctd_ldflags}" "${ctd_tags}"
build "${here}/node" ctr github.com/containerd/containerd/v2/cmd/ctr "${ctd_ldflags}" "${ctd_tags}"
build "${here}/node" pause ./pause ""

t0=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
# apt-get download needs the package lists; a fresh machine may have none yet.
if ! (cd "${work}" && apt-get download -qq "${debs[@]}" 2>/dev/null); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  (cd "${work}" && apt-get download -qq "${debs[@]}")
fi
for deb in "${work}"/*.deb; do dpkg-deb -x "${deb}" "${work}/root"; done
install -m 0755 "${work}/root/usr/sbin/runc" "${out}/bin/runc"
install -m 0755 "${work}/root/bin/busybox" "${out}/bin/busybox"
for plugin in bridge host-local loopback; do
  install -m 0755 "${work}/root/usr/lib/cni/${plugin}" "${out}/cni/${plugin}"
done
echo "extracted runc, the CNI plugins and busybox from Debian in $((SECONDS - t0)) s"

"${out}/bin/kubelet" --version
"${out}/bin/containerd" --version
"${out}/bin/runc" --version | sed -n 1p
echo "${want}" > "${stamp}"
