package check

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/optr-dev/optr/internal/config"
)

func init() {
	register(config.CheckJSONSchema, kind{
		build: func(_ string, c config.Constraint, opts Options) (Checker, error) {
			return newSchema(c.Schema, opts.Dir)
		},
		describe: func(c config.Constraint) string {
			return "the output is JSON valid against the schema " + c.Schema
		},
		preflight: func(c config.Constraint, opts Options) (string, error) {
			ch, err := newSchema(c.Schema, opts.Dir)
			if err != nil {
				return "", nil // New refuses it
			}
			sc := ch.(*schemaCheck)
			if sc.once.Do(sc.compile); sc.err != nil {
				return "schema", fmt.Errorf("the check cannot run, so it could pass no output: %w", sc.err)
			}
			return "", nil
		},
	})
}

// schemaCheck passes when the output is JSON valid against a JSON Schema.
// The schema is compiled once, on first use, so every output of a run is
// checked against the same compiled schema; preflight compiled it before
// any agent started, so a schema that fails now (removed since) fails a
// hard constraint (Evaluate).
type schemaCheck struct {
	path string // as configured, for messages
	dir  string // absolute workspace
	once sync.Once
	sch  *jsonschema.Schema
	err  error
}

func newSchema(path, dir string) (Checker, error) {
	if path == "" {
		return nil, errors.New("schema is empty: set schema: to a JSON Schema file, relative to the workspace")
	}
	if !filepath.IsLocal(filepath.FromSlash(path)) {
		return nil, fmt.Errorf("schema %s must be a relative path inside the workspace", quote(path, maxQuote))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("find the workspace %s: %w", quote(dir, maxQuote), err)
	}
	return &schemaCheck{path: path, dir: abs}, nil
}

func (c *schemaCheck) Check(_ context.Context, output string) (Outcome, error) {
	c.once.Do(c.compile)
	if c.err != nil {
		return Outcome{}, c.err
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(output))
	if err != nil {
		if jerr := validJSON(output); jerr != nil {
			return Outcome{Reason: jerr.Error()}, nil
		}
		return Outcome{Reason: "output is not valid JSON: " + err.Error()}, nil
	}
	err = c.sch.Validate(inst)
	var ve *jsonschema.ValidationError
	switch {
	case err == nil:
		return Outcome{Pass: true}, nil
	case errors.As(err, &ve):
		return Outcome{Reason: "output does not match schema " + c.path + ": " + firstViolation(ve)}, nil
	default:
		return Outcome{}, fmt.Errorf("validate against schema %s: %w", c.path, err)
	}
}

func (c *schemaCheck) compile() {
	root, err := os.OpenRoot(c.dir)
	if err != nil {
		c.err = fmt.Errorf("open the workspace to read schema %s: %w", c.path, err)
		return
	}
	defer root.Close()
	comp := jsonschema.NewCompiler()
	comp.UseLoader(jsonschema.SchemeURLLoader{"file": rootLoader{root: root, dir: c.dir}})
	loc := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(c.dir, filepath.FromSlash(c.path)))}).String()
	sch, err := comp.Compile(loc)
	if err != nil {
		c.err = fmt.Errorf("compile JSON Schema %s in the workspace %s: %w; fix the schema file or the schema: path in the config", c.path, c.dir, err)
		return
	}
	c.sch = sch
}

// rootLoader loads file: URLs from inside the workspace only, so a $ref can
// reach sibling files but not the rest of the machine. Other schemes (http)
// are refused by SchemeURLLoader: a check never goes to the network.
type rootLoader struct {
	root *os.Root
	dir  string
}

func (l rootLoader) Load(u string) (any, error) {
	p, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(l.dir, filepath.FromSlash(p.Path))
	if err != nil {
		return nil, err
	}
	f, err := l.root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return jsonschema.UnmarshalJSON(f)
}

// firstViolation describes the first leaf of a validation error tree: the
// innermost reason, at its instance location (a JSON Pointer).
func firstViolation(ve *jsonschema.ValidationError) string {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	leaf := *ve
	leaf.Causes = nil
	return leaf.Error()
}
