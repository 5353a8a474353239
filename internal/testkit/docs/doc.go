// Package docs keeps the documentation honest: its tests read README.md,
// docs/*.md, CONTRIBUTING.md, action.yml and the repository's workflows
// and fail when what they say and what the code does drift apart.
//
//   - Every ```yaml block in README.md and docs/*.md parses. A block is
//     classified by its top-level keys, and checked as what it is: a GitHub
//     workflow (on: and jobs:) passes actionlint; a jobs: fragment ("same
//     on: as the quick start's") passes actionlint completed with
//     README.md's first workflow; a list of steps passes actionlint as
//     steps that follow the optr step; an optr config (only keys of
//     internal/config/schema.json at the top) validates against the schema
//     and loads through config.Parse. A block that cannot be checked whole
//     is listed, with the reason, in the test's skip table; a block that
//     fits no kind fails the test.
//   - Every ```sh block of README.md and docs/*.md runs as written, with
//     the optr this tree builds, in a copy of the offline demo (or against
//     a fake provider where it exports a key); a block that cannot run
//     here is parsed by optr (each command with --help) or listed with the
//     reason, in the test's table. Every fenced block says its language
//     (sh, yaml or text), and every synopsis in a text block ("optr run
//     [--config F] …") names only flags the command's --help lists.
//   - Every workflow, in the docs and in .github/workflows, checks out with
//     persist-credentials: false, gives optr only inputs action.yml
//     declares, and starts optr on issue events only behind the trigger
//     guard.
//   - The repository's own .github/workflows pass actionlint, with the
//     repository as the project (so `uses: ./` is checked against action.yml)
//     and .github/actionlint.yaml, as .ci/run lints them.
//   - action.yml's inputs are exactly the INPUT_* variables the action reads
//     (action.LoadInputs), its outputs exactly the ones internal/actionrun
//     writes; the docs' inputs table and outputs paragraph name the same
//     ones, with the same defaults, and every value the docs show for an
//     input is one the binary accepts.
//   - Every relative link in README.md and docs/*.md names a file of the
//     repository, and its #fragment a heading there.
//   - CONTRIBUTING.md's map of the code has a row for every package and none
//     for a package that is gone, and every file its recipes ("Where to add
//     …") name exists. Its worked examples (a check kind, a provider),
//     applied as written in a go build overlay, build, regenerate the
//     schema and pass the tests they name.
//   - The places that list providers by hand name every provider of the
//     registry (package provider): the table of providers and endpoints
//     in docs/configuration.md, the keys in docs/security-model.md and
//     SECURITY.md, the secrets of .github/workflows/optr-matrix.yml.
//   - Every citation of the architecture document (`architecture §x.y`,
//     and a bare §x.y, in Go, Markdown, YAML and shell files anywhere in
//     the repository) names a section docs/architecture.md has; the
//     document numbers each section once, in order; nothing cites the
//     brief the repository was built from (a section of DESIGN.md).
//
// The package has no code of its own beyond this comment; host/action.yml
// is held equal to action.yml by scripts/host_test.go.
package docs
