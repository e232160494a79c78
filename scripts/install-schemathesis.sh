#!/usr/bin/env bash
# Installs Schemathesis (the OpenAPI fuzzer of `npm run test:api`) from PyPI into its own virtual
# environment, outside the repository:
#   ${GPUSHARE_SCHEMATHESIS_DIR:-$HOME/.cache/gpushare/schemathesis-<version>}
# with exactly the versions pinned in scripts/schemathesis/requirements.txt (Schemathesis and each
# package it pulls in). A stamp file names the requirements and Python it was installed from, so a
# second run with nothing changed returns at once. Needs python3 (3.9 or newer) with its venv
# module. Prints the installed version.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="${here}/schemathesis/requirements.txt"
version="$(sed -n 's/^schemathesis==//p' "${requirements}")"
out="${GPUSHARE_SCHEMATHESIS_DIR:-${HOME}/.cache/gpushare/schemathesis-${version}}"
stamp="${out}/.installed-from"

if ! command -v python3 >/dev/null; then
  echo "install-schemathesis: python3 is missing (Python 3.9 or newer with venv runs Schemathesis)" >&2
  exit 1
fi
want="$( (cat "${requirements}" "$0"; python3 --version) | sha256sum | cut -d' ' -f1)"

if [ -f "${stamp}" ] && [ "$(cat "${stamp}")" = "${want}" ] && [ -x "${out}/bin/schemathesis" ]; then
  echo "schemathesis ${version} is up to date in ${out}"
  exit 0
fi

rm -rf "${out}"
python3 -m venv "${out}"
"${out}/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --require-virtualenv -r "${requirements}"
"${out}/bin/python" -m pip check
echo "${want}" > "${stamp}"
"${out}/bin/schemathesis" --version
