package frames

// The two frame starts. Both are startLen bytes long and share "<<<O".
const (
	startOPTR = "<<<OPTR:"
	startODEI = "<<<ODEI:"
	startLen  = len(startOPTR)
)

// isStart reports whether b is a whole frame start.
func isStart(b []byte) bool {
	return string(b) == startOPTR || string(b) == startODEI
}

// isPartialStart reports whether b is a proper, non-empty prefix of a frame start.
func isPartialStart(b []byte) bool {
	n := len(b)
	return n > 0 && n < startLen && (string(b) == startOPTR[:n] || string(b) == startODEI[:n])
}

// partialSuffix returns the length of the longest suffix of b that is a
// proper prefix of a frame start.
func partialSuffix(b []byte) int {
	for n := min(len(b), startLen-1); n > 0; n-- {
		if isPartialStart(b[len(b)-n:]) {
			return n
		}
	}
	return 0
}

// textByte advances the start matcher by one byte of text. Bytes that can
// no longer belong to a frame start are written out; a completed start
// opens a frame.
func (p *Parser) textByte(c byte) {
	cand := &p.cand // a field, not a local: slices of it reach io.Writer and would escape
	n := copy(cand[:], p.tail[:p.tailLen])
	cand[n] = c
	n++
	if isStart(cand[:n]) {
		// A start whose first bytes were written before a removed frame
		// is not a frame the agent wrote; it is read and dropped like one.
		p.startFrame(cand[:n], p.tailOut > 0)
		return
	}
	keep := partialSuffix(cand[:n])
	drop := n - keep
	if drop > p.tailOut {
		p.emit(cand[p.tailOut:drop])
	}
	p.tailOut = max(0, p.tailOut-drop)
	p.tailLen = copy(p.tail[:], cand[drop:n])
}

// trackOutTail keeps outTail up to date as b is written out.
func (p *Parser) trackOutTail(b []byte) {
	var buf [2 * startLen]byte
	n := copy(buf[:], p.outTail[:p.outTailLen])
	if len(b) >= startLen {
		n = 0
		b = b[len(b)-startLen+1:]
	}
	n += copy(buf[n:], b)
	keep := partialSuffix(buf[:n])
	p.outTailLen = copy(p.outTail[:], buf[n-keep:n])
}

// resumeText returns to text after a frame: the written output's partial
// start, if any, is the tail again, already written.
func (p *Parser) resumeText() {
	p.inFrame = false
	p.tailLen = copy(p.tail[:], p.outTail[:p.outTailLen])
	p.tailOut = p.tailLen
}
