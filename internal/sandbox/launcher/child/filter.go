package child

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"golang.org/x/net/bpf"
)

// A seccomp filter is a classic BPF program over struct seccomp_data (the
// system call's number, its architecture, its instruction pointer and
// six 64-bit arguments) that returns what the kernel does with the call.
//
// Why the program is assembled here, with golang.org/x/net/bpf, and not
// by github.com/elastic/go-seccomp-bpf: that library (v1.6.0) compares a
// later call's number against whatever argument a failed condition left
// in the accumulator — a socket rule followed by a connect rule lets
// socket(AF_INET, …) through — and its syscall tables, built in its
// package init, would cost every launch 160 KB before it starts an agent.
// What is left is small: a rule is a few instructions, each starting from
// the call's number, so no rule depends on what another left behind.

// Op compares an argument with a Rule's value, as 64-bit unsigned numbers.
type Op int

// The comparisons a rule can make, libseccomp's (and so Docker's
// profile's).
const (
	Eq       Op = iota // arg == Value
	Ne                 // arg != Value
	Lt                 // arg < Value
	Le                 // arg <= Value
	Gt                 // arg > Value
	Ge                 // arg >= Value
	MaskedEq           // arg & Mask == Value
)

// An Arg is a condition on the argument Index (0 to 5) of a call.
type Arg struct {
	Index int
	Op    Op
	Value uint64
	Mask  uint64 // MaskedEq only
}

// Low32 is the condition that the low 32 bits of argument i are v: the
// kernel reads an int argument from those bits alone, so a refusal must
// not be avoidable by setting the others.
func Low32(i int, v uint32) Arg {
	return Arg{Index: i, Op: MaskedEq, Mask: math.MaxUint32, Value: uint64(v)}
}

// A Rule is what a filter does with the calls Nrs when every one of Args
// holds: it returns Action (a SECCOMP_RET_* value, with its data).
type Rule struct {
	Nrs    []uint32
	Args   []Arg
	Action uint32
}

// nativeLittleEndian says where the halves of a 64-bit argument lie.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// seccomp_data's layout.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// Filter is the program of rules for the architecture arch (an
// AUDIT_ARCH_* value): a call of any other architecture — and on x86-64 a
// call of the x32 ABI (x32 set: its syscall-number bit) — returns
// foreign; otherwise the first rule that matches decides, and a call no
// rule matches returns def.
func Filter(arch, x32 uint32, rules []Rule, def, foreign uint32) ([]bpf.Instruction, error) {
	p := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipTrue: 1},
		bpf.RetConstant{Val: foreign},
	}
	if x32 != 0 {
		p = append(p,
			bpf.LoadAbsolute{Off: offNr, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpBitsNotSet, Val: x32, SkipTrue: 1},
			bpf.RetConstant{Val: foreign},
		)
	}
	for _, r := range rules {
		code, err := r.code()
		if err != nil {
			return nil, err
		}
		p = append(p, code...)
	}
	p = append(p, bpf.RetConstant{Val: def})
	if len(p) > 4096 {
		return nil, fmt.Errorf("seccomp filter: %d instructions, more than the kernel's 4096", len(p))
	}
	return p, nil
}

// code is r's instructions: each starts by loading the call's number, and
// a call r does not match falls through to what follows.
func (r Rule) code() ([]bpf.Instruction, error) {
	if len(r.Nrs) == 0 {
		return nil, errors.New("seccomp filter: a rule names no system call")
	}
	if len(r.Args) == 0 {
		// One return, reached by a chain of comparisons, in runs short
		// enough for BPF's 8-bit jumps.
		var out []bpf.Instruction
		for nrs := r.Nrs; len(nrs) > 0; {
			n := min(len(nrs), 200)
			out = append(out, bpf.LoadAbsolute{Off: offNr, Size: 4})
			for i, nr := range nrs[:n] {
				// Matched: skip the rest of the chain and the jump over the
				// return.
				out = append(out, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(n - i)})
			}
			out = append(out, bpf.Jump{Skip: 1}, bpf.RetConstant{Val: r.Action})
			nrs = nrs[n:]
		}
		return out, nil
	}
	var out []bpf.Instruction
	for _, nr := range r.Nrs {
		block, err := conditional(nr, r.Args, r.Action)
		if err != nil {
			return nil, err
		}
		out = append(out, block...)
	}
	return out, nil
}

// fail marks a jump to the end of a conditional block: the call does not
// match.
const fail = math.MaxUint8

// conditional is one call's block: its number, then each condition; a
// condition that does not hold jumps past the block's return.
func conditional(nr uint32, args []Arg, action uint32) ([]bpf.Instruction, error) {
	b := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: fail},
	}
	for _, a := range args {
		if a.Index < 0 || a.Index > 5 {
			return nil, fmt.Errorf("seccomp filter: argument %d: there are six, 0 to 5", a.Index)
		}
		code, err := a.code()
		if err != nil {
			return nil, err
		}
		b = append(b, code...)
	}
	b = append(b, bpf.RetConstant{Val: action})
	// Every jump to fail goes just past the return: to the end of the
	// block.
	end := len(b)
	for i, ins := range b {
		j, ok := ins.(bpf.JumpIf)
		if !ok {
			continue
		}
		if j.SkipTrue == fail {
			j.SkipTrue = uint8(end - i - 1)
		}
		if j.SkipFalse == fail {
			j.SkipFalse = uint8(end - i - 1)
		}
		if end-i-1 > math.MaxUint8-1 {
			return nil, errors.New("seccomp filter: a rule's conditions are too long")
		}
		b[i] = j
	}
	return b, nil
}

// code compares the argument with the condition's value, the high half
// first. It falls through when the condition holds and jumps to fail
// when it does not.
func (a Arg) code() ([]bpf.Instruction, error) {
	hiOff, loOff := uint32(offArgs+8*a.Index), uint32(offArgs+8*a.Index)
	if nativeLittleEndian {
		hiOff += 4
	} else {
		loOff += 4
	}
	hi, lo := uint32(a.Value>>32), uint32(a.Value)
	ldHi := bpf.LoadAbsolute{Off: hiOff, Size: 4}
	ldLo := bpf.LoadAbsolute{Off: loOff, Size: 4}
	// ordered is the code of Lt, Le, Gt and Ge: decided by the high
	// halves unless they are equal, then by the low halves. above says
	// whether the comparison holds when the argument is greater.
	ordered := func(above bool, loCond bpf.JumpTest) []bpf.Instruction {
		pass, stop := bpf.JumpGreaterThan, bpf.JumpLessThan
		if !above {
			pass, stop = stop, pass
		}
		return []bpf.Instruction{
			ldHi,
			bpf.JumpIf{Cond: pass, Val: hi, SkipTrue: 3},
			bpf.JumpIf{Cond: stop, Val: hi, SkipTrue: fail},
			ldLo,
			bpf.JumpIf{Cond: loCond, Val: lo, SkipFalse: fail},
		}
	}
	switch a.Op {
	case Eq:
		return []bpf.Instruction{
			ldHi, bpf.JumpIf{Cond: bpf.JumpEqual, Val: hi, SkipFalse: fail},
			ldLo, bpf.JumpIf{Cond: bpf.JumpEqual, Val: lo, SkipFalse: fail},
		}, nil
	case Ne:
		return []bpf.Instruction{
			ldHi, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: hi, SkipTrue: 2},
			ldLo, bpf.JumpIf{Cond: bpf.JumpEqual, Val: lo, SkipTrue: fail},
		}, nil
	case MaskedEq:
		return []bpf.Instruction{
			ldHi, bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: uint32(a.Mask >> 32)},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: hi, SkipFalse: fail},
			ldLo, bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: uint32(a.Mask)},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: lo, SkipFalse: fail},
		}, nil
	case Gt:
		return ordered(true, bpf.JumpGreaterThan), nil
	case Ge:
		return ordered(true, bpf.JumpGreaterOrEqual), nil
	case Lt:
		return ordered(false, bpf.JumpLessThan), nil
	case Le:
		return ordered(false, bpf.JumpLessOrEqual), nil
	}
	return nil, fmt.Errorf("seccomp filter: unknown comparison %d", a.Op)
}
