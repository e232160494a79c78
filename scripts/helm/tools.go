//go:build tools

// Package tools pins the Helm command that scripts/build-helm.sh builds, so that `go mod tidy`
// keeps its dependencies in go.sum.
package tools

import (
	_ "helm.sh/helm/v4/cmd/helm"
)
