package pipeline

import "context"

// Run prepares, executes, decides and — unless the run pauses for a human —
// records one run. A paused report is returned unrecorded: the caller raises
// the checkpoint.
func Run(ctx context.Context, spec Spec, deps Deps) (*Report, error) {
	p, err := Prepare(spec, deps)
	if err != nil {
		return nil, err
	}
	rep, err := p.Execute(ctx)
	if err != nil {
		return rep, err
	}
	Decide(rep)
	if rep.Status == Paused {
		return rep, nil
	}
	return rep, Record(rep, deps.now())
}
