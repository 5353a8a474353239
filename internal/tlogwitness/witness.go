package tlogwitness

import (
	"fmt"
	"net/url"
	"strings"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// Witness is one witness the ledger's checkpoints are sent to: where it
// takes submissions and the key its cosignatures verify with.
type Witness struct {
	// URL is the witness's submission prefix; add-checkpoint is below it.
	URL string
	// Key is the witness's note verifier key (a cosignature/v1 vkey,
	// name+hash+base64).
	Key string

	verifier note.Verifier
}

// New checks a witness's URL and key (ledger.witnesses in the config).
func New(rawURL, vkey string) (Witness, error) {
	if err := CheckURL(rawURL); err != nil {
		return Witness{}, err
	}
	v, err := Verifier(vkey)
	if err != nil {
		return Witness{}, err
	}
	return Witness{URL: rawURL, Key: strings.TrimSpace(vkey), verifier: v}, nil
}

// CheckURL checks a witness's submission prefix: an absolute http or
// https URL without a query or fragment.
func CheckURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("witness URL %q: %w", rawURL, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("witness URL %q is not an http(s) URL of the witness's submission prefix (e.g. https://witness.example/), without a query", rawURL)
	}
	return nil
}

// Verifier reads a witness's verifier key: a C2SP cosignature/v1 key
// (type 0x04), or a plain Ed25519 note key (0x01) taken as one.
func Verifier(vkey string) (note.Verifier, error) {
	v, err := fnote.NewVerifierForCosignatureV1(strings.TrimSpace(vkey))
	if err != nil {
		return nil, fmt.Errorf("witness key %q is not a note verifier key of a witness (name+hash+base64, cosignature/v1): %w", vkey, err)
	}
	return v, nil
}

// Name is the witness's key name, which names it in messages.
func (w Witness) Name() string { return w.verifier.Name() }

// addCheckpoint is the URL add-checkpoint requests go to.
func (w Witness) addCheckpoint() string {
	return strings.TrimSuffix(w.URL, "/") + "/add-checkpoint"
}
