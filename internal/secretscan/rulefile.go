package secretscan

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// gitleaksJSON is gitleaks' default rule file, gitleaks.toml — byte for
// byte the one its config package embeds (config.DefaultConfig) at the
// version go.mod names — in JSON: gen_rules.go converts it at go generate
// time, so that no TOML parser is linked into optr, and
// TestRuleJSONIsTheRuleFile holds the two to the same rules.
// TestRuleFileIsGitleaks fails when gitleaks.toml differs from gitleaks'
// own; `go generate ./internal/secretscan` copies it again and converts it.
//
// A copy rather than config.DefaultConfig because that package reads the
// file through viper, which with the ten modules it brings (hcl, ini,
// afero, cast, fsnotify, mapstructure, gotenv, …) made optr's binary a
// fifth larger; gitleaks publishes its rules in no package of their own.
// The rules are used unmodified; only the loader is ours (load).
//
//go:generate sh -c "cp \"$(go list -m -f '{{.Dir}}' github.com/zricethezav/gitleaks/v8)/config/gitleaks.toml\" gitleaks.toml && chmod 644 gitleaks.toml"
//go:generate go run gen_rules.go
//go:embed gitleaks.json
var gitleaksJSON string

// ruleFile is a gitleaks rule file as gitleaks' loader reads it (its
// config.ViperConfig): rules, and allowlists that apply to every rule or
// to the rules they name.
type ruleFile struct {
	Title       string     `toml:"title" json:"title"`
	Description string     `toml:"description" json:"description"`
	MinVersion  string     `toml:"minVersion" json:"minVersion"`
	Extend      *extend    `toml:"extend" json:"extend"`
	Rules       []fileRule `toml:"rules" json:"rules"`
	// AllowList is the older single [allowlist] form, which gitleaks.toml
	// still writes; Allowlists the [[allowlists]] form.
	AllowList  *fileAllowlist   `toml:"allowlist" json:"allowlist"`
	Allowlists []*fileAllowlist `toml:"allowlists" json:"allowlists"`
}

// extend is a rule file's [extend] table: gitleaks merges another rule
// file into it. optr loads only gitleaks' own file, which extends nothing.
type extend struct {
	Path          string   `toml:"path" json:"path"`
	URL           string   `toml:"url" json:"url"`
	UseDefault    bool     `toml:"useDefault" json:"useDefault"`
	DisabledRules []string `toml:"disabledRules" json:"disabledRules"`
}

// fileRule is one [[rules]] entry.
type fileRule struct {
	ID          string           `toml:"id" json:"id"`
	Description string           `toml:"description" json:"description"`
	Path        string           `toml:"path" json:"path"`
	Regex       string           `toml:"regex" json:"regex"`
	SecretGroup int              `toml:"secretGroup" json:"secretGroup"`
	Entropy     float64          `toml:"entropy" json:"entropy"`
	Keywords    []string         `toml:"keywords" json:"keywords"`
	Tags        []string         `toml:"tags" json:"tags"`
	AllowList   *fileAllowlist   `toml:"allowlist" json:"allowlist"`
	Allowlists  []*fileAllowlist `toml:"allowlists" json:"allowlists"`
	Required    []fileRequired   `toml:"required" json:"required"`
	SkipReport  bool             `toml:"skipReport" json:"skipReport"`
}

// fileRequired is a composite rule's [[rules.required]] entry.
type fileRequired struct {
	ID            string `toml:"id" json:"id"`
	WithinLines   *int   `toml:"withinLines" json:"withinLines"`
	WithinColumns *int   `toml:"withinColumns" json:"withinColumns"`
}

// fileAllowlist is an allowlist as written: of a rule, or global (then
// TargetRules may narrow it to some rules).
type fileAllowlist struct {
	Description string   `toml:"description" json:"description"`
	Condition   string   `toml:"condition" json:"condition"`
	Commits     []string `toml:"commits" json:"commits"`
	Paths       []string `toml:"paths" json:"paths"`
	RegexTarget string   `toml:"regexTarget" json:"regexTarget"`
	Regexes     []string `toml:"regexes" json:"regexes"`
	StopWords   []string `toml:"stopwords" json:"stopwords"`
	TargetRules []string `toml:"targetRules" json:"targetRules"`
}

// decodeRuleFile decodes a rule file in its JSON form (gitleaksJSON). A
// key the loader does not know is an error, so a gitleaks release that
// adds one fails this package's tests instead of being ignored.
func decodeRuleFile(file string) (*ruleFile, error) {
	var f ruleFile
	dec := json.NewDecoder(strings.NewReader(file))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("decode gitleaks.json: %w", err)
	}
	return &f, nil
}

// checkRuleFile refuses what gitleaks' loader (config.ViperConfig's
// Translate) refuses, and what optr's does not do: extending another
// file, and composite rules (rules.required), whose matching lives in
// gitleaks' scanner, not in its rule file. It resolves the allowlists:
// each rule's own (the old [rules.allowlist] form included) with the
// global ones that target it, and the global ones for every rule. Regular
// expressions are compiled later, when a rule is first used.
func checkRuleFile(f *ruleFile) (perRule [][]*fileAllowlist, global []*fileAllowlist, err error) {
	if f.Extend != nil && (f.Extend.Path != "" || f.Extend.URL != "" || f.Extend.UseDefault || len(f.Extend.DisabledRules) > 0) {
		return nil, nil, errors.New("the rule file extends another ([extend]), which optr's loader does not do")
	}
	ids := map[string]int{}
	perRule = make([][]*fileAllowlist, len(f.Rules))
	for i, r := range f.Rules {
		switch {
		case strings.TrimSpace(r.ID) == "":
			return nil, nil, fmt.Errorf("rule %d has no id", i+1)
		case r.Regex == "" && r.Path == "":
			return nil, nil, fmt.Errorf("%s: both |regex| and |path| are empty, this rule will have no effect", r.ID)
		case len(r.Required) > 0:
			return nil, nil, fmt.Errorf("%s: composite rules ([[rules.required]]) are not supported by optr's loader", r.ID)
		case r.AllowList != nil && len(r.Allowlists) > 0:
			return nil, nil, fmt.Errorf("%s: [rules.allowlist] is deprecated, it cannot be used alongside [[rules.allowlist]]", r.ID)
		}
		if _, dup := ids[r.ID]; dup {
			// gitleaks keeps the last; a file that says two things is refused here.
			return nil, nil, fmt.Errorf("rule id %s appears twice", r.ID)
		}
		ids[r.ID] = i
		lists := r.Allowlists
		if r.AllowList != nil {
			lists = []*fileAllowlist{r.AllowList}
		}
		for _, a := range lists {
			if err := checkAllowlist(a); err != nil {
				return nil, nil, fmt.Errorf("%s: [[rules.allowlists]] %w", r.ID, err)
			}
		}
		perRule[i] = lists
	}
	lists := f.Allowlists
	if f.AllowList != nil {
		if len(f.Allowlists) > 0 {
			return nil, nil, errors.New("[allowlist] is deprecated, it cannot be used alongside [[allowlists]]")
		}
		lists = []*fileAllowlist{f.AllowList}
	}
	for _, a := range lists {
		if err := checkAllowlist(a); err != nil {
			return nil, nil, fmt.Errorf("[[allowlists]] %w", err)
		}
		if len(a.TargetRules) == 0 {
			global = append(global, a)
			continue
		}
		for _, id := range a.TargetRules {
			i, ok := ids[id]
			if !ok {
				return nil, nil, fmt.Errorf("[[allowlists]] target rule ID '%s' does not exist", id)
			}
			perRule[i] = append(perRule[i], a)
		}
	}
	return perRule, global, nil
}

// checkAllowlist refuses an allowlist gitleaks refuses: an unknown
// condition or regex target, or one that checks nothing.
func checkAllowlist(a *fileAllowlist) error {
	if _, err := conditionOf(a.Condition); err != nil {
		return err
	}
	if _, err := targetOf(a.RegexTarget); err != nil {
		return err
	}
	if len(a.Commits) == 0 && len(a.Paths) == 0 && len(a.Regexes) == 0 && len(a.StopWords) == 0 {
		return errors.New("must contain at least one check for: commits, paths, regexes, or stopwords")
	}
	return nil
}

// conditionOf reads an allowlist's condition: whether every check it has
// must hold (AND) or any one (OR, the default).
func conditionOf(c string) (and bool, err error) {
	switch strings.ToUpper(c) {
	case "AND", "&&":
		return true, nil
	case "", "OR", "||":
		return false, nil
	}
	return false, fmt.Errorf("unknown allowlist |condition| '%s' (expected 'and', 'or')", c)
}

// targetOf reads what an allowlist's regexes are matched against: the
// secret (""), the rule's whole match, or the line.
func targetOf(t string) (string, error) {
	switch t {
	case "", "secret":
		return "", nil
	case "match", "line":
		return t, nil
	}
	return "", fmt.Errorf("unknown allowlist |regexTarget| '%s' (expected 'match', 'line')", t)
}
