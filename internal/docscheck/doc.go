// Package docscheck holds a test, no code: every script the documentation
// names (scripts/*.sh in README.md and docs/*.md) exists, every script in
// scripts/ is named by a document and listed in scripts/README.md, each
// passes `bash -n` and follows the scripts' conventions (set -euo pipefail, a
// QUICK=1 mode), and every table of measured figures in docs/performance.md
// and docs/larger-than-memory.md names the script that regenerates it.
package docscheck
