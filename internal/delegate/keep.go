package delegate

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/beneath"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
)

// Keep lists the files of the spec folder to record with the run, once no
// specialist runs: the invocation plan, OVERVIEW.md and the reports at
// their planned paths. Every other file there is named in refused and
// left out: a specialist may write the folder of its report, so a file one
// left beside its report is not the delegation's to keep. Each planned
// report is read again (never through a link, at most MaxReportBytes) and
// redacted in place with redact when it holds a secret, as something may
// have written it after it was read (a specialist's process with the
// sandbox off); a valid report must still be the report judged (its
// SHA-256), else it is left out too.
func (o *Outcome) Keep(redact func(string) string) (files []string, refused []datalake.Refused, err error) {
	if o.SpecDir == "" {
		return nil, nil, nil
	}
	judged := map[string]string{} // a valid report's path → its SHA-256
	for _, t := range o.Topics {
		if t.Valid {
			judged[filepath.Join(o.SpecDir, strings.TrimPrefix(t.Path, o.Spec+"/"))] = t.SHA256
		}
	}
	keep := func(path string) {
		rel, _ := filepath.Rel(o.SpecDir, path)
		why, err := o.keepReport(path, judged, redact)
		if err != nil && why == "" {
			why = err.Error()
		}
		if why != "" {
			refused = append(refused, datalake.Refused{Path: filepath.ToSlash(rel), Reason: why})
			return
		}
		files = append(files, path)
	}
	wrote := []string{o.InvocationPlan, o.Overview}
	err = filepath.WalkDir(o.SpecDir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return nil
		case slices.Contains(wrote, path):
			files = append(files, path)
		case slices.Contains(o.reports, path):
			keep(path)
		default:
			rel, _ := filepath.Rel(o.SpecDir, path)
			refused = append(refused, datalake.Refused{Path: filepath.ToSlash(rel),
				Reason: "not a file of the delegation (its plan, overview or a planned report): a specialist left it, so it is not committed"})
		}
		return nil
	})
	if err != nil {
		return files, refused, fmt.Errorf("list the spec folder %s: %w", o.SpecDir, err)
	}
	return files, refused, nil
}

// keepReport reads the planned report at path again and redacts it in
// place; why says why it is not kept, empty when it is.
func (o *Outcome) keepReport(path string, judged map[string]string, redact func(string) string) (why string, err error) {
	data, err := beneath.Read(filepath.Dir(path), filepath.Base(path), MaxReportBytes)
	if err != nil {
		var notFile *beneath.NotRegularError
		var tooLarge *beneath.TooLargeError
		if errors.As(err, &notFile) || errors.As(err, &tooLarge) {
			return err.Error() + ", so it is not committed", nil
		}
		return "", fmt.Errorf("read the report %s: %w", path, err)
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	if redact != nil {
		text = redact(text)
	}
	if want, ok := judged[path]; ok && executor.SHA256Hex(text) != want {
		return "the report was changed after it was judged, so it is not committed", nil
	}
	if text != string(data) {
		if err := datalake.Replace(path, []byte(text)); err != nil {
			return "", fmt.Errorf("redact the report %s: %w", path, err)
		}
	}
	return "", nil
}
