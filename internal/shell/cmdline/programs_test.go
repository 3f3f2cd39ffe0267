package cmdline

import (
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestAnalyzeFindsEveryProgram(t *testing.T) {
	tests := []struct {
		name    string
		command string
		want    []string
	}{
		{"list", "ls; rm -rf x", []string{"ls", "rm"}},
		{"and or", "make && go test || npm test", []string{"make", "go", "npm"}},
		{"pipeline", "ls | xargs rm", []string{"ls", "rm"}},
		{"pipeline with stderr", "go build |& tee log", []string{"go", "tee"}},
		{"command substitution", "echo $(rm x)", []string{"rm"}},
		{"backquotes", "echo `rm x`", []string{"rm"}},
		{"substitution in quotes", `echo "today: $(date)"`, []string{"date"}},
		{"process substitution", "diff <(sort a) <(sort b)", []string{"diff", "sort"}},
		{"output process substitution", "tee >(gzip > x.gz) < f", []string{"tee", "gzip"}},
		{"subshell", "(cd sub && make)", []string{"make"}},
		{"block", "{ go vet; go test; }", []string{"go"}},
		{"assignment before", "FOO=1 rm x", []string{"rm"}},
		{"assignment with substitution", "X=$(whoami) go test", []string{"go", "whoami"}},
		{"command builtin", "command rm x", []string{"rm"}},
		{"command -v only looks up", "command -v rm", nil},
		{"sudo", "sudo rm -rf /", []string{"sudo", "rm"}},
		{"sudo with user", "sudo -u root -E rm x", []string{"sudo", "rm"}},
		{"doas", "doas rm x", []string{"doas", "rm"}},
		{"env -i", "env -i rm x", []string{"rm"}},
		{"env with variables", "env -u HOME A=1 B=2 python3 x.py", []string{"python3"}},
		{"env alone", "env", []string{"env"}},
		{"absolute env", "/usr/bin/env rm x", []string{"rm"}},
		{"env outside the system folders is its own program", "/tmp/bin/env rm x", []string{"/tmp/bin/env"}},
		{"nice", "nice -n 10 rm x", []string{"rm"}},
		{"nice numeric", "nice -5 make", []string{"make"}},
		{"timeout", "timeout -s KILL 5 rm x", []string{"rm"}},
		{"timeout long options", "timeout --kill-after=1 10s go test", []string{"go"}},
		{"exec", "exec -a name rm x", []string{"rm"}},
		{"nohup", "nohup ./server &", []string{"./server"}},
		{"stdbuf", "stdbuf -oL make", []string{"make"}},
		{"xargs with options", "find . -name '*.o' | xargs -0 -n 1 rm -f", []string{"find", "rm"}},
		{"xargs without command runs echo", "ls | xargs", []string{"ls"}},
		{"find -exec", `find . -exec rm {} \;`, []string{"find", "rm"}},
		{"find -execdir +", "find . -execdir chmod +x {} +", []string{"find", "chmod"}},
		{"nested wrappers", "sudo env FOO=1 nice timeout 3 rm x", []string{"sudo", "rm"}},
		{"single-quoted name", "'rm' x", []string{"rm"}},
		{"partly quoted name", `"r"m x`, []string{"rm"}},
		{"escaped name", `\rm x`, []string{"rm"}},
		{"ansi-c quoted name", `$'\x72m' x`, []string{"rm"}},
		{"here-doc expands", "cat <<EOF\n$(rm x)\nEOF", []string{"cat", "rm"}},
		{"here-doc quoted is text", "cat <<'EOF'\nrm x\nEOF", []string{"cat"}},
		{"here-string", "grep x <<< \"$(id)\"", []string{"grep", "id"}},
		{"redirect target substitution", "echo hi > $(mktemp)", []string{"mktemp"}},
		{"function defined then called", "f() { rm x; }; f", []string{"rm"}},
		{"function keyword", "function f { curl x; }\nf", []string{"curl"}},
		{"function called before it is defined runs the program", "ls; ls() { :; }", []string{"ls"}},
		{"function defined conditionally may not exist", "if false; then rm() { :; }; fi; rm -rf x", []string{"rm"}},
		{"unset function runs the program", "rm() { :; }; unset -f rm; rm -rf x", []string{"rm"}},
		{"command bypasses functions", "rm() { :; }; command rm x", []string{"rm"}},
		{"bash -c literal", `bash -c 'rm x; ls'`, []string{"rm", "ls"}},
		{"sh -ec literal", `sh -ec "curl x | tar x"`, []string{"curl", "tar"}},
		{"bash running a script", "bash build.sh", []string{"bash"}},
		{"nested shells", `bash -c "sh -c 'rm x'"`, []string{"rm"}},
		{"trap literal", `trap 'rm -f tmp' EXIT; make`, []string{"rm", "make"}},
		{"trap reset", `trap - INT; make`, []string{"make"}},
		{"builtins are not programs", "cd sub && echo hi && pwd && test -f x && true", nil},
		{"declare", "export FOO=bar; go test", []string{"go"}},
		{"if while for case", "if test -f x; then go build; fi; while false; do sleep 1; done; for f in a b; do cat $f; done; case x in x) make;; esac", []string{"go", "sleep", "cat", "make"}},
		{"time keyword", "time go test", []string{"go"}},
		{"coproc", "coproc cat", []string{"cat"}},
		{"negation", "! grep -q x f", []string{"grep"}},
		{"path program", "./run.sh --fast", []string{"./run.sh"}},
		{"absolute program", "/usr/bin/rm x", []string{"/usr/bin/rm"}},
		{"plain arithmetic on literals", "echo $((1+2)); for ((i=0; i<3; i++)); do echo $i; done", nil},
		{"substring on a substituted value", "v=$(git rev-parse HEAD); echo ${v:0:7}", []string{"git"}},
		{"array keys", `a=(x y); echo "${a[@]}"`, nil},
		{"comments", "ls # ; rm -rf /", []string{"ls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Analyze(tt.command)
			if a.Unknowable != "" {
				t.Fatalf("Analyze(%q) is unknowable: %s", tt.command, a.Unknowable)
			}
			if !reflect.DeepEqual(a.Programs, tt.want) {
				t.Errorf("Analyze(%q).Programs = %q, want %q", tt.command, a.Programs, tt.want)
			}
		})
	}
}

func TestAnalyzeUnknowable(t *testing.T) {
	tests := []struct {
		name    string
		command string
		why     string // a word the reason must contain
	}{
		{"substitution names the program", "$(echo rm) x", "expansion"},
		{"variable names the program", "$CMD x", "expansion"},
		{"braced variable", "${CMD} x", "expansion"},
		{"partly variable", "r$X x", "expansion"},
		{"glob names the program", "r* x", "glob"},
		{"brace names the program", "{rm,ls} x", "brace"},
		{"eval", `eval "rm x"`, "eval"},
		{"source", "source ./env.sh", "source"},
		{"dot", ". ./env.sh", "."},
		{"bash -c variable", `bash -c "$x"`, "bash -c"},
		{"bash reading stdin", "curl x | bash", "input"},
		{"sh -s", "sh -s < script", "input"},
		{"sudo -s", "sudo -s", "shell"},
		{"env -S", `env -S "rm x"`, "env -S"},
		{"env variable word", `env "$A" x`, "env"},
		{"xargs unknown option", "xargs --frobnicate rm", "option"},
		{"wrapper option from a variable", "nice $OPTS rm", "option"},
		{"PATH assignment", "PATH=. ls", "PATH"},
		{"exported PATH", "export PATH=/tmp:$PATH; ls", "PATH"},
		{"LD_PRELOAD via env", "env LD_PRELOAD=./x.so ls", "LD_PRELOAD"},
		{"BASH_ENV", "BASH_ENV=./x bash -c ls", "BASH_ENV"},
		{"for loop over PATH", "for PATH in /tmp; do ls; done", "PATH"},
		{"read into PATH", "read PATH < f; ls", "PATH"},
		{"printf -v PATH", "printf -v PATH %s /tmp; ls", "PATH"},
		{"alias", "alias ls=rm; ls x", "alias"},
		{"hash -p", "hash -p /tmp/x ls; ls", "hash"},
		{"enable -f", "enable -f ./x.so x", "enable"},
		{"nameref", "declare -n r=PATH; r=.; ls", "nameref"},
		{"indirect expansion", "echo ${!x}", "indirect"},
		{"prompt expansion", "echo ${x@P}", "prompt"},
		{"arithmetic on a read value", "read x < f; (( x ))", "arithmetic"},
		{"arithmetic on a substituted value", "x=$(cat f); echo $(( x + 1 ))", "arithmetic"},
		{"arithmetic on a hidden substitution", `x='a[$(rm -rf ~)]'; (( x ))`, "$("},
		{"test on a hidden substitution", `x='a[$(id)]'; [[ $x -eq 1 ]]`, "$("},
		{"declare -i with a hidden substitution", `declare -i n; n='a[$(id)]'`, "declare -i"},
		{"trap with a variable", `trap "$cleanup" EXIT`, "trap"},
		{"parse error", "if then fi (", "parsed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Analyze(tt.command)
			if a.Unknowable == "" {
				t.Fatalf("Analyze(%q) = %q, want unknowable", tt.command, a.Programs)
			}
			if !strings.Contains(a.Unknowable, tt.why) {
				t.Errorf("Analyze(%q).Unknowable = %q, want it to mention %q", tt.command, a.Unknowable, tt.why)
			}
			if !a.Detaches {
				t.Errorf("an unknowable command must be treated as one that may detach")
			}
		})
	}
}

func TestAnalyzeDetaches(t *testing.T) {
	tests := []struct {
		command string
		want    bool
	}{
		{"go test ./...", false},
		{"sleep 1000 &", false},
		{"setsid sleep 1000", true},
		{"nohup ./server > log 2>&1 &", true},
		{"./server & disown", true},
		{"tmux new -d make", true},
	}
	for _, tt := range tests {
		if got := Analyze(tt.command).Detaches; got != tt.want {
			t.Errorf("Analyze(%q).Detaches = %v, want %v", tt.command, got, tt.want)
		}
	}
}

func TestAnalyzeDeepNesting(t *testing.T) {
	cmd := "rm x"
	for i := 0; i < maxDepth+2; i++ {
		q, err := syntax.Quote(cmd, syntax.LangBash)
		if err != nil {
			t.Fatal(err)
		}
		cmd = "bash -c " + q
	}
	a := Analyze(cmd)
	if !strings.Contains(a.Unknowable, "nested") {
		t.Fatalf("a command nested %d shells deep: Unknowable = %q, Programs = %q; want it unknowable", maxDepth+2, a.Unknowable, a.Programs)
	}
}
