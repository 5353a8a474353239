// Package proxy is optr's egress proxy: the one way out for agents and
// checks (architecture §4.14). It speaks HTTP CONNECT (for HTTPS and any other
// TLS) and plain HTTP in absolute form, the two things HTTPS_PROXY and
// HTTP_PROXY make clients send, and lets a request through only to the
// hosts of sandbox.network.
//
// Each sandboxed process gets a Session: the proxy serves that process's
// own listener (inside its network namespace, or a loopback port only it
// may connect to), so everything a Session records — every host reached
// or refused, and how often — belongs to that one agent or check. "How
// often" is in HTTP requests: plain HTTP in absolute form, and a
// tunnel's requests when it carries plain HTTP (its requests are then
// served one by one); a TLS tunnel, whose requests the proxy cannot see,
// is counted as a tunnel. Every request and every piece of data is a sign
// of life the Session's traffic function hears (ServeWith), and a
// streamed answer is passed on as it comes.
//
// What it refuses: a host not listed; an IP address not listed; a listed
// name that resolves to a private, loopback, link-local or unspecified
// address that is not itself listed (the address is checked once and
// dialled as checked, so a second answer of the resolver cannot redirect
// the connection); a port other than the one listed (443 for CONNECT and
// 80 for plain HTTP when none is). Requests are bounded: headers by
// MaxHeaderBytes, the time to send them, and plain HTTP bodies by
// MaxBody; a bad request is answered and closed, never a crash.
//
// Why it is written here: net/http already parses and bounds requests and
// forwards plain HTTP, so what is left is the policy and the per-agent
// record — a few hundred lines. Proxy libraries (elazarl/goproxy and the
// like) are built around interception and rewriting, do not check the
// address they dial against the policy, and would add more code than
// they save.
package proxy
