// Command pause is the sandbox ("pause") container of the test node's pods: it holds the pod's
// namespaces, reaps the zombies that are re-parented to it, and exits 0 on SIGINT or SIGTERM.
// The tests build it from this file because there is no container registry to pull one from.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s == syscall.SIGCHLD {
			for {
				var status syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
			continue
		}
		os.Exit(0)
	}
}
