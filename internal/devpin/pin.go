// Package devpin keeps every planned dependency in go.mod while packages are
// being written in parallel. It is deleted once they all import what they need.
package devpin

import (
	_ "github.com/anthropics/anthropic-sdk-go"
	_ "github.com/getkin/kin-openapi/openapi3filter"
	_ "github.com/getkin/kin-openapi/routers/gorillamux"
	_ "github.com/goccy/go-yaml"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/go-github/v60/github"
	_ "github.com/gowebpki/jcs"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/openai/openai-go/v3/azure"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/sethvargo/go-githubactions"
	_ "github.com/sethvargo/go-retry"
	_ "github.com/spf13/pflag"
	_ "golang.org/x/oauth2"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/term"
)
