package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// row is one line of the benchmark table.
// row is one line of the table. A row without a goal is informative (a
// floor measured beside a goal, a figure to read with another): it has
// nothing to meet, and ok is not read.
type row struct {
	id, what, measured, value, goal string
	ok                              bool
}

func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWHAT\tMEASURED\tVALUE\tGOAL\tMET")
	for _, r := range rows {
		goal, met := r.goal, "yes"
		switch {
		case goal == "":
			goal, met = "(informative)", "—"
		case !r.ok:
			met = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.id, r.what, r.measured, r.value, goal, met)
	}
	tw.Flush()
}
