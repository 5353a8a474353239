package child

import (
	"encoding/binary"
	"math"
	"testing"

	"golang.org/x/net/bpf"
)

// data is a seccomp_data as the filter reads it: golang.org/x/net/bpf's
// VM loads words in network order, so each word is written so, where the
// kernel's layout puts it.
func data(arch, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	for i, a := range args {
		lo, hi := offArgs+8*i, offArgs+8*i+4
		if !nativeLittleEndian {
			lo, hi = hi, lo
		}
		binary.BigEndian.PutUint32(b[lo:], uint32(a))
		binary.BigEndian.PutUint32(b[hi:], uint32(a>>32))
	}
	return b
}

func run(t *testing.T, prog []bpf.Instruction, in []byte) uint32 {
	t.Helper()
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	out, err := vm.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(out)
}

// Each comparison, on both halves of 64-bit arguments, and rules that
// follow a failed condition still see the call's number (what
// go-seccomp-bpf v1.6.0 gets wrong).
func TestFilter(t *testing.T) {
	const (
		arch  = 7
		a, b  = 100, 200 // two calls
		yes   = 1
		no    = 2
		def   = 3
		alien = 4
	)
	big := uint64(1) << 40
	for _, tc := range []struct {
		name string
		cond Arg
		pass []uint64
		fail []uint64
	}{
		{"eq", Arg{Index: 1, Op: Eq, Value: big + 5}, []uint64{big + 5}, []uint64{5, big, big + 6}},
		{"ne", Arg{Index: 1, Op: Ne, Value: big + 5}, []uint64{5, big, 0}, []uint64{big + 5}},
		{"lt", Arg{Index: 1, Op: Lt, Value: big + 5}, []uint64{0, 5, big + 4, big - 1}, []uint64{big + 5, big + 6, 2 * big}},
		{"le", Arg{Index: 1, Op: Le, Value: big + 5}, []uint64{big + 5, big}, []uint64{big + 6, 2 * big}},
		{"gt", Arg{Index: 1, Op: Gt, Value: big + 5}, []uint64{big + 6, 2 * big}, []uint64{big + 5, 5, big + 4}},
		{"ge", Arg{Index: 1, Op: Ge, Value: big + 5}, []uint64{big + 5, 2 * big}, []uint64{big + 4, 0}},
		{"masked", Arg{Index: 1, Op: MaskedEq, Mask: 0xf, Value: 1}, []uint64{1, 0x801, big + 0x81}, []uint64{2, 5, 0x800}},
		{"low32", Low32(1, 0x8901), []uint64{0x8901, big | 0x8901}, []uint64{0x8902, 0}},
		{"max", Arg{Index: 5, Op: Eq, Value: math.MaxUint64}, []uint64{math.MaxUint64}, []uint64{math.MaxUint32}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog, err := Filter(arch, 0, []Rule{
				{Nrs: []uint32{a}, Args: []Arg{{Index: 0, Op: Eq, Value: 1}, tc.cond}, Action: yes},
				{Nrs: []uint32{a}, Action: no},
				{Nrs: []uint32{b}, Action: yes},
			}, def, alien)
			if err != nil {
				t.Fatal(err)
			}
			args := func(v uint64) []uint64 {
				out := make([]uint64, 6)
				out[0] = 1
				out[tc.cond.Index] = v
				return out
			}
			for _, v := range tc.pass {
				if got := run(t, prog, data(arch, a, args(v)...)); got != yes {
					t.Errorf("%#x: %d, want the rule's action", v, got)
				}
			}
			for _, v := range tc.fail {
				if got := run(t, prog, data(arch, a, args(v)...)); got != no {
					t.Errorf("%#x: %d, want the next rule's", v, got)
				}
			}
			if got := run(t, prog, data(arch, b)); got != yes {
				t.Errorf("call b: %d", got)
			}
			if got := run(t, prog, data(arch, 999)); got != def {
				t.Errorf("another call: %d, want the default", got)
			}
			if got := run(t, prog, data(arch+1, a, args(tc.pass[0])...)); got != alien {
				t.Errorf("another architecture: %d, want foreign", got)
			}
		})
	}
}

// A rule that follows a failed condition compares the call's number,
// not the argument the condition left behind: a call whose argument
// happens to be another call's number is not taken for that call.
func TestFilterReloadsTheNumber(t *testing.T) {
	const a, b = 41, 42 // socket and connect on x86-64
	prog, err := Filter(7, 0, []Rule{
		{Nrs: []uint32{a}, Args: []Arg{{Index: 0, Op: Eq, Value: 1}}, Action: 1},
		{Nrs: []uint32{b}, Action: 2},
	}, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, prog, data(7, a, b)); got != 3 {
		t.Errorf("call %d with argument %d: %d, want the default (3)", a, b, got)
	}
}

// A long run of calls without conditions is split into runs BPF's 8-bit
// jumps reach, and every call in it matches.
func TestFilterLongChain(t *testing.T) {
	var nrs []uint32
	for i := range uint32(500) {
		nrs = append(nrs, 1000+i)
	}
	prog, err := Filter(7, 0x40000000, []Rule{{Nrs: nrs, Action: 1}}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, nr := range []uint32{1000, 1199, 1200, 1499} {
		if got := run(t, prog, data(7, nr)); got != 1 {
			t.Errorf("call %d: %d, want matched", nr, got)
		}
	}
	if got := run(t, prog, data(7, 999)); got != 2 {
		t.Errorf("call 999: %d, want the default", got)
	}
	if got := run(t, prog, data(7, 0x40000000|1000)); got != 3 {
		t.Errorf("an x32 call: %d, want foreign", got)
	}
}
