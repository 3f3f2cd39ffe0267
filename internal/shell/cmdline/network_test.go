package cmdline

import (
	"strings"
	"testing"
)

func TestNetworkUse(t *testing.T) {
	for cmd, want := range map[string]string{
		"curl -s https://example.com":                     "curl",
		"/usr/bin/wget -qO- http://x.test | head":         "wget",
		"git clone https://github.com/a/b":                "git clone",
		"git -C sub fetch origin":                         "git fetch",
		"git -c core.x=y pull --rebase":                   "git pull",
		"cd repo && git pull && make":                     "git pull",
		"npm install left-pad":                            "npm install",
		"npm ci":                                          "npm ci",
		"yarn":                                            "yarn",
		"pip install requests":                            "pip install",
		"go get example.com/m@latest":                     "go get",
		"go mod download":                                 "go mod",
		"sudo apt-get update":                             "apt-get update",
		"env FOO=1 curl x.test":                           "curl",
		"bash -c 'wget x.test'":                           "wget",
		"timeout 5 ssh host uptime":                       "ssh",
		"rsync -a host:/srv/ out/":                        "rsync",
		"docker pull alpine; docker run alpine true":      "docker pull, docker run",
		"npx create-thing":                                "npx",
		"gh issue view 12":                                "gh",
		"git $SUB":                                        "git",
		"git status && git diff":                          "",
		"npm test":                                        "",
		"go test ./...":                                   "",
		"rsync -a src/ dst/":                              "",
		"ls -la; cat README.md":                           "",
		"echo curl":                                       "",
		"grep -r wget .":                                  "",
		"f() { :; }; f":                                   "",
		"git log --oneline | grep fetch":                  "",
		"cargo build":                                     "",
		"cargo add serde && cargo fetch":                  "cargo add, cargo fetch",
		"xargs -n1 curl -O < urls.txt":                    "curl",
		"find . -name '*.url' -exec curl -O {} \\;":       "curl",
		"python3 -m http.server":                          "",
		"uv pip install x":                                "uv pip",
		"brew install ripgrep && brew list":               "brew install",
		"svn checkout https://svn.example.com/repo/trunk": "svn checkout",
	} {
		got := strings.Join(Analyze(cmd).Network, ", ")
		if got != want {
			t.Errorf("Analyze(%q).Network = %q, want %q", cmd, got, want)
		}
	}
}
