package secretscan

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	toml "github.com/pelletier/go-toml/v2"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

// gitleaksLoad loads a rule file with gitleaks' own loader: viper reads
// it, config.ViperConfig's Translate builds the rules.
func gitleaksLoad(file string) (config.Config, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(file)); err != nil {
		return config.Config{}, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, err
	}
	return vc.Translate()
}

// translateOnce guards gitleaks' Translate, which reads and writes
// package state of its own (the viper singleton, the extend depth).
var translateOnce sync.Mutex

var defaultConfig = sync.OnceValues(func() (config.Config, error) {
	translateOnce.Lock()
	defer translateOnce.Unlock()
	return gitleaksLoad(config.DefaultConfig)
})

// gitleaksConfig is gitleaks' default rule set as gitleaks loads it.
func gitleaksConfig(t *testing.T) config.Config {
	t.Helper()
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The rule file optr's rules come from is gitleaks' own, byte for byte,
// at the version go.mod names (go generate copies it again after an
// update).
func TestRuleFileIsGitleaks(t *testing.T) {
	t.Parallel()
	file, err := os.ReadFile("gitleaks.toml")
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != config.DefaultConfig {
		t.Fatal("internal/secretscan/gitleaks.toml is not the rule file of the gitleaks version in go.mod: run go generate ./internal/secretscan")
	}
}

// The JSON form optr embeds holds the rules gitleaks.toml does: decoded
// with go-toml (the parser viper uses, as gitleaks reads the file) and
// from gitleaks.json, the two give the same rule file, every key known.
func TestRuleJSONIsTheRuleFile(t *testing.T) {
	t.Parallel()
	var want ruleFile
	dec := toml.NewDecoder(strings.NewReader(config.DefaultConfig))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	got, err := decodeRuleFile(gitleaksJSON)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Fatalf("gitleaks.json is not gitleaks.toml (-toml +json); run go generate ./internal/secretscan:\n%s", diff)
	}
	if len(want.Rules) < 100 {
		t.Fatalf("%d rules: not gitleaks' rule file", len(want.Rules))
	}
}

// The loader builds every rule as gitleaks' own loader does: the same
// rules in the same order, each with the same expressions, secret group,
// entropy, keywords and allowlists (global ones that target it included),
// and the same global allowlists — allowlists compared by what they
// allow, over strings made to hit every regex and stop word they have.
func TestLoaderAgreesWithGitleaks(t *testing.T) {
	t.Parallel()
	want := gitleaksConfig(t)
	s := rules()
	var ids []string
	for _, r := range s.rules {
		ids = append(ids, r.id)
	}
	if !slices.Equal(ids, want.OrderedRules) {
		t.Fatalf("rules %v\nwant %v", ids, want.OrderedRules)
	}
	for _, r := range s.rules {
		wr := want.Rules[r.id]
		got, err := s.compile(r)
		if err != nil {
			t.Errorf("%s: %v", r.id, err)
			continue
		}
		if str(got.regex) != str(wr.Regex) || str(got.path) != str(wr.Path) || got.secretGroup != wr.SecretGroup ||
			got.entropy != wr.Entropy || got.skipReport != wr.SkipReport {
			t.Errorf("%s: regex %q path %q group %d entropy %v skip %v; gitleaks: %q %q %d %v %v", r.id,
				str(got.regex), str(got.path), got.secretGroup, got.entropy, got.skipReport,
				str(wr.Regex), str(wr.Path), wr.SecretGroup, wr.Entropy, wr.SkipReport)
		}
		var kws []string
		for _, k := range s.file.Rules[r.index].Keywords {
			kws = append(kws, strings.ToLower(k))
		}
		if !slices.Equal(kws, wr.Keywords) && len(kws)+len(wr.Keywords) > 0 {
			t.Errorf("%s: keywords %v, gitleaks %v", r.id, kws, wr.Keywords)
		}
		compareAllowlists(t, r.id, got.allowlists, wr.Allowlists)
	}
	global, err := s.allowlists()
	if err != nil {
		t.Fatal(err)
	}
	compareAllowlists(t, "global", global, want.Allowlists)
}

// compareAllowlists checks that each of got allows what gitleaks' want
// does, but where anchorAlternation corrected one of its expressions.
func compareAllowlists(t *testing.T, where string, got []*allowlist, want []*config.Allowlist) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d allowlists, gitleaks %d", where, len(got), len(want))
		return
	}
	for i, w := range want {
		g := got[i]
		where := fmt.Sprintf("%s allowlist %d", where, i+1)
		if g.and != (w.MatchCondition == config.AllowlistMatchAnd) || g.target != w.RegexTarget || g.commits != (len(w.Commits) > 0) {
			t.Errorf("%s: and %v target %q commits %v; gitleaks %v %q %v", where, g.and, g.target, g.commits, w.MatchCondition, w.RegexTarget, w.Commits)
		}
		for _, probe := range probes(w) {
			if gp, wp := g.pathAllowed(probe), w.PathAllowed(probe); gp != wp {
				t.Errorf("%s: path %q allowed %v, gitleaks %v", where, probe, gp, wp)
			}
			wantRegex := w.RegexAllowed(probe)
			if len(g.fixed) > 0 { // gitleaks' answer to the expressions as meant
				wantRegex = false
				for _, re := range w.Regexes {
					fixed := regexp.MustCompile(anchorAlternation(re.String()))
					wantRegex = wantRegex || probe != "" && fixed.MatchString(probe)
				}
			}
			if gr := g.regexes != nil && probe != "" && g.regexes.MatchString(probe); gr != wantRegex {
				t.Errorf("%s: regexes on %q allow %v, gitleaks %v", where, probe, gr, wantRegex)
			}
			if gs, _ := w.ContainsStopWord(probe); g.stopWord(probe) != gs {
				t.Errorf("%s: stop word in %q %v, gitleaks %v", where, probe, g.stopWord(probe), gs)
			}
		}
	}
}

// probes are strings an allowlist's checks answer differently: each stop
// word in upper case amid other text, strings each regex and path was
// written for, and ordinary secrets and paths.
func probes(a *config.Allowlist) []string {
	out := []string{"", "main.go", "web/package-lock.json", "gradlew", "go.sum", "vendor/modules.txt",
		"true", "false", "null", "TRUE", "xfalsex", "nullx", "truex", "x-null", "$VAR", "${VAR}", "{{ .Values.x }}",
		"aaaaaaaa", "/usr/local/bin/x", tokentest.GitHubPAT(1), tokentest.Random(2, 32, tokentest.Alnum),
		"key_id = \"" + tokentest.Random(3, 24, tokentest.Alnum) + "\"", "--mount=type=secret,id=x"}
	for _, w := range a.StopWords {
		out = append(out, "X"+strings.ToUpper(w)+"y", w[:len(w)-1])
	}
	for _, re := range append(slices.Clone(a.Regexes), a.Paths...) {
		// The expression's own literal text often satisfies it (paths,
		// assignments); its example matches make the rest.
		src := re.String()
		out = append(out, src, strings.NewReplacer(`\.`, ".", `(?:^|/)`, "", "$", "", "^", "").Replace(src))
	}
	return out
}

// detectorOf is gitleaks' own detector over its default rules, with
// gitleaks:allow comments ignored as optr ignores them.
func detectorOf(t *testing.T) *detect.Detector {
	t.Helper()
	d := detect.NewDetector(gitleaksConfig(t))
	d.IgnoreGitleaksAllow = true
	return d
}

func str(re *regexp.Regexp) string {
	if re == nil {
		return ""
	}
	return re.String()
}

// What gitleaks' loader refuses, optr's refuses, and the reverse for
// what it accepts; and optr's refuses the two things it does not do.
func TestLoaderRefusesAsGitleaks(t *testing.T) {
	t.Parallel()
	const rule = "[[rules]]\nid = \"r\"\nregex = '''a(b)c'''\n"
	for _, tt := range []struct {
		name, file string
		gitleaks   bool // gitleaks refuses it too
	}{
		{"no id", "[[rules]]\nregex = '''x'''\n", true},
		{"no regex or path", "[[rules]]\nid = \"r\"\n", true},
		{"unknown condition", rule + "[[rules.allowlists]]\ncondition = \"XOR\"\nregexes = ['''x''']\n", true},
		{"unknown target", rule + "[[rules.allowlists]]\nregexTarget = \"file\"\nregexes = ['''x''']\n", true},
		{"empty allowlist", rule + "[[rules.allowlists]]\ndescription = \"nothing\"\n", true},
		{"both global forms", rule + "[allowlist]\nregexes = ['''x''']\n[[allowlists]]\nregexes = ['''y''']\n", true},
		{"unknown target rule", rule + "[[allowlists]]\ntargetRules = [\"nope\"]\nregexes = ['''y''']\n", true},
		{"composite rule", rule + "[[rules.required]]\nid = \"r\"\n", false},
		{"extend", "[extend]\nuseDefault = true\n" + rule, false},
		{"unknown key", rule + "severity = \"high\"\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := loadTOML(tt.file); err == nil {
				t.Error("optr's loader accepted it")
			}
			if tt.gitleaks {
				translateOnce.Lock()
				_, err := gitleaksLoad(tt.file)
				translateOnce.Unlock()
				if err == nil {
					t.Error("gitleaks' loader accepts it: the case does not test agreement")
				}
			}
		})
	}
	// An expression that does not compile, or names a group it does not
	// have, fails the rule when it is first used, as gitleaks fails the
	// file.
	for _, file := range []string{"[[rules]]\nid = \"r\"\nregex = '''a(b'''\n", "[[rules]]\nid = \"r\"\nregex = '''a(b)c'''\nsecretGroup = 2\n"} {
		s, err := loadTOML(file)
		if err != nil {
			t.Fatalf("%q: %v", file, err)
		}
		if _, err := s.compile(s.rules[0]); err == nil {
			t.Errorf("%q compiled", file)
		}
		translateOnce.Lock()
		func() {
			defer func() { _ = recover() }() // gitleaks compiles with MustCompile
			if _, err := gitleaksLoad(file); err == nil {
				t.Errorf("gitleaks accepts %q", file)
			}
		}()
		translateOnce.Unlock()
	}
	// A global allowlist with targetRules joins those rules' own.
	s, err := loadTOML(rule + "[[allowlists]]\ntargetRules = [\"r\"]\nregexes = ['''^b$''']\n")
	if err != nil {
		t.Fatal(err)
	}
	cr, err := s.compile(s.rules[0])
	if err != nil || len(cr.allowlists) != 1 {
		t.Fatalf("rule r has %d allowlists, %v", len(cr.allowlists), err)
	}
	if g, _ := s.allowlists(); len(g) != 0 {
		t.Errorf("a targeted allowlist is global too: %d", len(g))
	}
}

// The misplaced anchors of (?i)^true|false|null$ are read as meant, and
// nothing else in gitleaks' rule file is touched.
func TestAnchorAlternation(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(anchorAlternation(`(?i)^true|false|null$`))
	for s, want := range map[string]bool{"true": true, "FALSE": true, "Null": true, "xfalsex": false, "truex": false, "xnull": false, "ghp_falseABC": false} {
		if re.MatchString(s) != want {
			t.Errorf("%s matches %q: %v", re, s, !want)
		}
	}
	for _, expr := range []string{`^a$|^b$`, `^(?:a|b)$`, `a|b`, `^a|b`, `^a|^b|c$`, `(^a|b$)x`} {
		if got := anchorAlternation(expr); got != expr {
			t.Errorf("anchorAlternation(%s) = %s; want it untouched", expr, got)
		}
	}
	var fixed []string
	s := rules()
	lists := slices.Clone(s.globalLists)
	for _, l := range s.lists {
		lists = append(lists, l...)
	}
	for _, a := range lists {
		for _, re := range a.Regexes {
			if anchorAlternation(re) != re {
				fixed = append(fixed, re)
			}
		}
	}
	if !slices.Equal(fixed, []string{`(?i)^true|false|null$`}) {
		t.Errorf("corrected %q; want only gitleaks' (?i)^true|false|null$", fixed)
	}
}

// gitleaks' own detector passes a GitHub token that holds "false" (its
// global allowlist's (?i)^true|false|null$ allows it); optr finds it, for
// redaction and detection alike. The upstream case.
func TestTokenHoldingFalse(t *testing.T) {
	t.Parallel()
	pat := "ghp_" + tokentest.Random(30, 14, tokentest.Alnum) + "False" + tokentest.Random(31, 17, tokentest.Alnum)
	text := "export GITHUB_TOKEN=" + pat + "\n"
	d := detectorOf(t)
	if fs := d.DetectString(text); len(fs) != 0 {
		t.Fatalf("gitleaks now finds %v: the upstream allowlist was fixed; anchorAlternation can go", fs)
	}
	for _, set := range []Set{Tokens, All} {
		ms := Find(text, "", set)
		if len(ms) != 1 || text[ms[0].Start:ms[0].End] != pat {
			t.Errorf("set %d: found %v in %q", set, ms, text)
		}
	}
}

// loadTOML loads a rule file written in TOML, converted to JSON as
// gen_rules.go converts gitleaks.toml.
func loadTOML(file string) (*set, error) {
	var doc map[string]any
	if err := toml.Unmarshal([]byte(file), &doc); err != nil {
		return nil, err
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return load(string(data))
}
