package measure

import (
	"fmt"
	"time"
)

// Case is one workload of a benchmark whose workloads take turns, round
// after round, so that the machine's load falls on all of them alike.
type Case struct {
	Name   string
	Base   string // the Name of the case its ratios are to; empty for none
	Target string // printed beside the figures, never checked
	// Batch calls run together in a round and are timed as one, the time
	// divided among them, so that calls shorter than the CPU clock's tick
	// still show in the CPU column; 0 is 1.
	Batch int
	Run   func(i int) error // i counts the calls of a warm-up or a batch
	// Ready, when set, runs before each timed batch, untimed: it waits
	// for what the case's previous call left to finish in the background.
	Ready func()

	Wall, CPU []time.Duration // per call, one of each a round
}

// Rotate runs every case warm times untimed (connections, caches, the
// first fork of a big process), then rounds rounds in which each runs once
// (a batch), each round starting one case further on. CPU is that of this
// process and of the children it has waited for.
func Rotate(cases []*Case, warm, rounds int) error {
	for _, c := range cases {
		for i := range warm {
			if err := c.Run(i); err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
		}
	}
	for r := range rounds {
		for i := range cases {
			c := cases[(i+r)%len(cases)]
			n := max(c.Batch, 1)
			if c.Ready != nil {
				c.Ready()
			}
			start, startCPU := time.Now(), CPU()
			for k := range n {
				if err := c.Run(k); err != nil {
					return fmt.Errorf("%s: %w", c.Name, err)
				}
			}
			c.Wall = append(c.Wall, time.Since(start)/time.Duration(n))
			c.CPU = append(c.CPU, (CPU()-startCPU)/time.Duration(n))
		}
	}
	return nil
}

// Table prints a row a case: the median and 90th percentile of its wall
// time and the median of its CPU time, the medians' ratios to its Base
// case's (which must come before it), and a target column when any case
// has one.
func Table(cases []*Case) {
	targets := false
	for _, c := range cases {
		targets = targets || c.Target != ""
	}
	row := func(cells ...any) {
		format := "%-40s %10s %10s %8s %10s %8s"
		if targets {
			format += "  %s"
		} else {
			cells = cells[:6]
		}
		fmt.Printf(format+"\n", cells...)
	}
	row("case", "wall", "wall p90", "ratio", "cpu", "ratio", "target")
	medians := map[string][2]time.Duration{}
	for _, c := range cases {
		m := [2]time.Duration{Median(c.Wall), Median(c.CPU)}
		medians[c.Name] = m
		wallRatio, cpuRatio := "", ""
		if b, ok := medians[c.Base]; ok {
			wallRatio = Ratio(m[0], b[0])
			if b[1] > 0 { // a CPU clock with a coarse tick can read 0
				cpuRatio = Ratio(m[1], b[1])
			}
		}
		row(c.Name, Dur(m[0]), Dur(Percentile(c.Wall, 90)), wallRatio, Dur(m[1]), cpuRatio, c.Target)
	}
}
