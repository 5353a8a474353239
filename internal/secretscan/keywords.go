package secretscan

// keywords finds the rules' keywords in a text, ASCII case-insensitively
// (gitleaks' keywords are lower-case ASCII).
//
// Written here rather than taken from gitleaks' prefilter (an
// Aho-Corasick trie over a lower-cased copy of the text) because this one
// runs over every byte of every agent output: two bitmaps of the
// keywords' first three (and, for two-byte words, two) bytes answer for
// almost every position with two bit tests, and no copy of a 50 MiB output
// is made. (Many keywords start alike — "key", "token", "secret" — so the
// first two bytes alone passed one position in five of ordinary code.)
type keywords struct {
	words [][]byte // lower-case
	rules [][]int  // per word, the indexes of the rules that have it
	// pair maps each lower-case two-byte start of a word to 1 + the
	// index in byPair of the words that start so (0: none).
	pair   [1 << 16]uint16
	byPair [][]int
	// tri is a Bloom filter of the words' lower-case three-byte starts;
	// duo marks the two-byte words.
	tri, duo [1 << 16 / 64]uint64
	// single marks the words one byte long (none today; kept for a rule
	// file that adds one).
	single [256][]int
}

func newKeywords() *keywords { return &keywords{} }

// add records that word (lower-case) is a keyword of rule.
func (k *keywords) add(word string, rule int) {
	if word == "" {
		return
	}
	for i, w := range k.words {
		if string(w) == word {
			k.rules[i] = append(k.rules[i], rule)
			return
		}
	}
	i := len(k.words)
	k.words = append(k.words, []byte(word))
	k.rules = append(k.rules, []int{rule})
	if len(word) == 1 {
		k.single[word[0]] = append(k.single[word[0]], i)
		return
	}
	p := uint16(word[0])<<8 | uint16(word[1])
	if k.pair[p] == 0 {
		k.byPair = append(k.byPair, nil)
		k.pair[p] = uint16(len(k.byPair))
	}
	k.byPair[k.pair[p]-1] = append(k.byPair[k.pair[p]-1], i)
	if len(word) == 2 {
		k.duo[p>>6] |= 1 << (p & 63)
	} else {
		h := triHash(word[0], word[1], word[2])
		k.tri[h>>6] |= 1 << (h & 63)
	}
}

// lower maps an ASCII byte to lower case and leaves every other byte.
var lower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

// hit is a keyword found at text[at:at+len(word)].
type hit struct {
	word, at int
}

// find calls fn for every keyword occurrence in text, in order of
// position.
func (k *keywords) find(text string, fn func(hit)) {
	n := len(text)
	for i := 0; i < n; i++ {
		c := lower[text[i]]
		for _, w := range k.single[c] {
			fn(hit{word: w, at: i})
		}
		if i+1 == n {
			break
		}
		c1 := lower[text[i+1]]
		p := uint16(c)<<8 | uint16(c1)
		if k.duo[p>>6]&(1<<(p&63)) == 0 {
			if i+2 == n {
				continue
			}
			if h := triHash(c, c1, lower[text[i+2]]); k.tri[h>>6]&(1<<(h&63)) == 0 {
				continue
			}
		}
		g := k.pair[p]
		if g == 0 {
			continue
		}
		for _, w := range k.byPair[g-1] {
			if hasPrefixFold(text[i:], k.words[w]) {
				fn(hit{word: w, at: i})
			}
		}
	}
}

// triHash maps three bytes to 16 bits for the tri filter.
func triHash(a, b, c byte) uint16 {
	return uint16((uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> 16)
}

// hasPrefixFold reports whether s starts with word (lower-case ASCII),
// ignoring ASCII case.
func hasPrefixFold(s string, word []byte) bool {
	if len(s) < len(word) {
		return false
	}
	for i, c := range word {
		if lower[s[i]] != c {
			return false
		}
	}
	return true
}
