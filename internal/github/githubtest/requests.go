package githubtest

// Request is one request the server received.
type Request struct {
	// Method and Path (below BasePath, e.g. /repos/o/r/git/trees) and the
	// raw query.
	Method, Path, Query string
	// Operation is the OpenAPI operation it matched, e.g.
	// "POST /repos/{owner}/{repo}/git/trees"; empty when it matched none.
	Operation string
	// Status is the HTTP status answered.
	Status int
	// Login is the identity of the request's token, empty without one.
	Login string
	// Fault is true when an injected fault answered.
	Fault bool
	// RequestBytes and ResponseBytes are the sizes of the request's and
	// the answer's bodies: what a client moved.
	RequestBytes, ResponseBytes int64
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Counts returns how many requests each operation received.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, r := range s.requests {
		out[r.Operation]++
	}
	return out
}

// Count returns how many requests operation op received.
func (s *Server) Count(op string) int { return s.Counts()[op] }

// ResetRequests forgets the requests received so far.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}
