// Package jsonschema compiles JSON Schemas (drafts 4, 6, 7, 2019-09 and
// 2020-12) and validates JSON values against them.
//
// It is github.com/santhosh-tekuri/jsonschema/v6 at v6.0.3 (Apache-2.0,
// LICENSE in this directory), copied without its tests, with its kind
// subpackage's import path rewritten and one change: the upstream package
// compiles every draft's metaschema in init, about 1.7 MB and 21,000
// allocations, which every start of optr paid (a quarter of `optr version`)
// whether or not it ever compiled a schema. Here they are compiled on the
// first NewCompiler (draft.go, loadDrafts). Everything else — the API, the
// verdicts and the error texts — is upstream's.
//
// To take a newer upstream release: copy its non-test files over these,
// rewrite the kind import, and make its draft init lazy again (or drop this
// copy if upstream has made it lazy); TestNoHeavyInit in cmd/optr guards it.
package jsonschema
