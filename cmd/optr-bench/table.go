package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// row is one line of the benchmark table.
type row struct {
	id, what, measured, value, goal string
	ok                              bool
}

func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWHAT\tMEASURED\tVALUE\tGOAL\tMET")
	for _, r := range rows {
		met := "yes"
		if !r.ok {
			met = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.id, r.what, r.measured, r.value, r.goal, met)
	}
	tw.Flush()
}
