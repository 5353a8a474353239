package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// agentSource is the directly exec'd agent: a small program (so that its
// start costs what a process start costs, not what loading this large one
// does) that reads its stdin, sleeps L, then writes n bytes (default
// "done\n") to stdout in 64 KiB writes: agent L [n].
const agentSource = `package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"time"
)

func main() {
	l, err := time.ParseDuration(os.Args[1])
	if err != nil {
		panic(err)
	}
	n := int64(-1)
	if len(os.Args) > 2 {
		if n, err = strconv.ParseInt(os.Args[2], 10, 64); err != nil {
			panic(err)
		}
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	time.Sleep(l)
	if n < 0 {
		os.Stdout.WriteString("done\n")
		return
	}
	chunk := bytes.Repeat([]byte("optr bench output line, 64 bytes long, again and again ......\n"), 1024)
	for n > 0 {
		w := min(n, int64(len(chunk)))
		if _, err := os.Stdout.Write(chunk[:w]); err != nil {
			os.Exit(1)
		}
		n -= w
	}
}
`

// httpAgentSource is the agent of the proxy's latency (S1), a program of
// its own so that P1's agent stays small: it sends a GET to URL+"warm"
// (which the server answers once every agent asked: the timed requests
// start together, after every agent started), then n GETs to URL one
// after another, through HTTP_PROXY when it is set (loopback included,
// whatever NO_PROXY says), and prints each one's latency in microseconds:
// http-agent URL n.
const httpAgentSource = `package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"
)

func main() {
	_, _ = io.Copy(io.Discard, os.Stdin)
	n, err := strconv.Atoi(os.Args[2])
	if err != nil {
		panic(err)
	}
	tr := &http.Transport{}
	if p := os.Getenv("HTTP_PROXY"); p != "" {
		u, err := url.Parse(p)
		if err != nil {
			panic(err)
		}
		tr.Proxy = http.ProxyURL(u)
	}
	c := &http.Client{Transport: tr}
	get := func(u string) {
		res, err := c.Get(u)
		if err != nil {
			panic(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			panic(res.Status)
		}
	}
	get(os.Args[1] + "warm")
	for range n {
		start := time.Now()
		get(os.Args[1])
		fmt.Println(time.Since(start).Microseconds())
	}
}
`

// buildAgent builds agentSource into dir and returns its path.
func buildAgent(ctx context.Context, dir string) (string, error) {
	return buildProgram(ctx, dir, "agent", agentSource)
}

// buildProgram builds the one-file program source into dir/name, static
// and stripped as a release is built (the floors are the smallest programs
// that do their work, the agents cost no more than they must). dir is
// made readable to every user, so that a sandboxed agent run as another
// user (optr as root) can execute what is in it.
func buildProgram(ctx context.Context, dir, name, source string) (string, error) {
	src := filepath.Join(dir, name+".go")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, src)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the bench %s: %w\n%s", name, err, out)
	}
	return bin, os.Chmod(dir, 0o755)
}

// childMain runs a child mode named by args[0] and reports whether it did.
func childMain(args []string) (bool, error) {
	if len(args) >= 2 && args[0] == rssChild {
		return true, runRSSChild(args[1:])
	}
	return false, nil
}

// rssChild runs a command and prints its wall time and peak RSS:
// optr-bench rss-child argv... On Linux a child's peak RSS counts its
// parent's RSS at the fork, so a command started straight from this
// process — which has written a gigabyte ledger — would be charged for
// it; started from this small child, it is charged its own.
const rssChild = "rss-child"

func runRSSChild(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("%d %d %d\n", wall.Nanoseconds(), peakRSS(cmd.ProcessState), cpu.Nanoseconds())
	return nil
}

// timeSmall runs a command through rss-child: its own wall time, CPU time
// and peak RSS, whatever this process holds.
func timeSmall(ctx context.Context, name string, args ...string) (usage, error) {
	self, err := os.Executable()
	if err != nil {
		return usage{}, err
	}
	out, err := exec.CommandContext(ctx, self, append([]string{rssChild, name}, args...)...).Output()
	if err != nil {
		return usage{}, err
	}
	var wall, rss, cpu int64
	if _, err := fmt.Sscan(string(out), &wall, &rss, &cpu); err != nil {
		return usage{}, fmt.Errorf("rss-child said %q: %w", out, err)
	}
	return usage{wall: time.Duration(wall), cpu: time.Duration(cpu), rss: rss}, nil
}

// atOnceMain is the main of a floor program that does one thing K times
// at once, K its first argument, and waits for them all: one(i) does the
// i-th. The program exits 1 when any failed, having said why on stderr. It
// needs os, strconv and sync.
const atOnceMain = `
func main() {
	k, err := strconv.Atoi(os.Args[1])
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	failed := make([]bool, k)
	for i := range k {
		wg.Go(func() {
			if err := one(i); err != nil {
				os.Stderr.WriteString("agent " + strconv.Itoa(i) + ": " + err.Error() + "\n")
				failed[i] = true
			}
		})
	}
	wg.Wait()
	for _, f := range failed {
		if f {
			os.Exit(1)
		}
	}
}
`

// spawnerSource is the floor command agents are measured against (P1): the
// smallest program that does what optr cannot avoid, starting K copies of
// argv at once, each with the intent on stdin and its stdout and stderr
// captured, and waiting for them all: spawner K argv... It imports only
// os/exec and what that needs, and is built static and stripped
// (buildProgram), so that its own start costs what a process start costs;
// optr-bench itself (a 60 MB binary) was the floor before, ~48 ms of wall
// and ~50 ms of CPU above this one.
const spawnerSource = `package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// one starts argv with the intent on stdin, its output captured.
func one(int) error {
	argv := os.Args[2:]
	var out, stderr bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader("sleep")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return errors.New(err.Error() + ": " + stderr.String())
	}
	return nil
}
` + atOnceMain

// netnsSpawnerSource is spawnerSource starting each agent in a network
// namespace of its own (and, when not run as root, the user namespace
// that lets it make one), as optr's sandbox does: the part of the
// sandbox's cost no implementation of per-agent network isolation can
// avoid, with nothing else of the sandbox (Linux only).
var netnsSpawnerSource = func() string {
	s := spawnerSource
	for _, r := range [][2]string{
		{"\t\"sync\"\n)", "\t\"sync\"\n\t\"syscall\"\n)"},
		{"\tcmd.Stdin = ", "\tcmd.SysProcAttr = namespaced()\n\tcmd.Stdin = "},
	} {
		if !strings.Contains(s, r[0]) {
			panic("netnsSpawnerSource: spawnerSource has no " + strconv.Quote(r[0]))
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	return s + `
func namespaced() *syscall.SysProcAttr {
	if os.Geteuid() == 0 {
		return &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	}
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}},
	}
}
`
}()

// httpClientSource is the floor LLM agents are measured against (P1b): a
// program that sends K Responses API requests at once to OPENAI_BASE_URL
// (the llmtest fake, which answers after L), each with a prompt of optr's
// size, reads every answer and exits: http-client K. It imports net/http
// and little else; what optr adds beyond it is optr's own cost, the rest
// is a process's start and K requests.
const httpClientSource = `package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

var (
	url, key = strings.TrimSuffix(os.Getenv("OPENAI_BASE_URL"), "/") + "/responses", os.Getenv("OPENAI_API_KEY")
	body     = fmt.Sprintf(` + "`" + `{"model":"gpt-4.1","instructions":%q,"input":"BEGIN INTENT X\nsleep\nEND INTENT X\n","max_output_tokens":4096,"store":false}` + "`" + `, strings.Repeat("optr's rules for the agent. ", 60))
)

// one sends a request and reads its answer.
func one(int) error {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %v", res.Status, err)
	}
	return nil
}
` + atOnceMain
