package matrix

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gowebpki/jcs"

	"github.com/optr-dev/optr/internal/config"
)

// Config is the resolved config a plan carries: every setting with its
// defaults filled in, and the orders the file gave (which the config's
// JSON form leaves out). Tasks and the gather run on it, never on the
// repository's config file, which may have changed since the plan.
type Config struct {
	// Path is the file the config was read from ("" for the embedded default).
	Path string `json:"path,omitempty"`
	// AgentNames and ConstraintNames keep the file's order.
	AgentNames      []string `json:"agent_names"`
	ConstraintNames []string `json:"constraint_names"`
	// Settings are the resolved settings.
	Settings *config.Config `json:"settings"`
}

// EmbedConfig captures cfg for a plan.
func EmbedConfig(cfg *config.Config) Config {
	settings := *cfg // the members JSON leaves out live beside it
	settings.Path, settings.AgentNames, settings.ConstraintNames = "", nil, nil
	return Config{
		Path:            cfg.Path,
		AgentNames:      append([]string{}, cfg.AgentNames...),
		ConstraintNames: append([]string{}, cfg.ConstraintNames...),
		Settings:        &settings,
	}
}

// SHA256 is config_sha256: the lowercase hex SHA-256 of the RFC 8785
// (JCS) canonical JSON of c, so that the hash does not depend on how the
// plan file was indented.
func (c Config) SHA256() (string, error) {
	if c.Settings == nil {
		return "", errors.New("the plan has no config")
	}
	data, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("encode the config: %w", err)
	}
	canon, err := jcs.Transform(data)
	if err != nil {
		return "", fmt.Errorf("canonicalise the config: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// Resolve returns the config the plan was made with, as config.Load would
// have returned it.
func (c Config) Resolve() (*config.Config, error) {
	if c.Settings == nil {
		return nil, errors.New("the plan has no config")
	}
	cfg := *c.Settings
	cfg.Path = c.Path
	cfg.AgentNames = append([]string(nil), c.AgentNames...)
	cfg.ConstraintNames = append([]string(nil), c.ConstraintNames...)
	for _, n := range cfg.AgentNames {
		if _, ok := cfg.Agents[n]; !ok {
			return nil, fmt.Errorf("the plan's config lists agent %q but does not define it", n)
		}
	}
	if len(cfg.AgentNames) != len(cfg.Agents) {
		return nil, fmt.Errorf("the plan's config defines %d agents but orders %d", len(cfg.Agents), len(cfg.AgentNames))
	}
	return &cfg, nil
}
