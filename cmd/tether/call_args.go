package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tether-dev/tether/internal/tool"
)

// callSpec is one tool call as given on the command line or as one JSON
// line on stdin.
type callSpec struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// maxStdinLine bounds one JSON line on stdin; a write_file carrying a
// large file is still far below it.
const maxStdinLine = 64 << 20

// callsFromArgs reads TOOL JSON pairs. Errors name the argument by its
// position so the user can find it in a long command line.
func callsFromArgs(args []string, reg *tool.Registry) ([]callSpec, error) {
	if len(args) == 0 {
		return nil, errors.New("no calls given: pass TOOL JSON pairs, or - to read JSON lines from stdin")
	}
	if len(args)%2 != 0 {
		last := args[len(args)-1]
		return nil, fmt.Errorf("calls come in pairs, TOOL then its JSON arguments, but %q has no JSON after it (use '{}' for a tool without arguments)", last)
	}
	var calls []callSpec
	for i := 0; i < len(args); i += 2 {
		name, raw := args[i], args[i+1]
		where := fmt.Sprintf("argument %d (the JSON for %s, call %d)", i+2, name, i/2+1)
		if err := checkToolName(name, reg); err != nil {
			return nil, fmt.Errorf("argument %d: %v", i+1, err)
		}
		if err := checkArguments([]byte(raw)); err != nil {
			return nil, fmt.Errorf("%s %v. Quote it for the shell, e.g. tether call read_file '{\"path\": \"README.md\"}'", where, err)
		}
		calls = append(calls, callSpec{Name: name, Arguments: json.RawMessage(raw)})
	}
	return calls, nil
}

// callsFromStdin reads one {"name":..., "arguments":{...}} object a line;
// blank lines are skipped. Every line is checked before any call runs, so
// a typo on line 5 does not leave lines 1-4 half applied.
func callsFromStdin(r io.Reader, reg *tool.Registry) ([]callSpec, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxStdinLine)
	var calls []callSpec
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var c callSpec
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("stdin line %d is not a call object like {\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}: %v", n, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("stdin line %d has more than one JSON value; put one call on each line", n)
		}
		if err := checkToolName(c.Name, reg); err != nil {
			return nil, fmt.Errorf("stdin line %d: %v", n, err)
		}
		if len(c.Arguments) == 0 {
			c.Arguments = json.RawMessage("{}")
		}
		if err := checkArguments(c.Arguments); err != nil {
			return nil, fmt.Errorf("stdin line %d: \"arguments\" %v", n, err)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading calls from stdin: %v", err)
	}
	if len(calls) == 0 {
		return nil, errors.New("stdin held no calls: send one JSON object a line")
	}
	return calls, nil
}

// checkToolName catches a misspelt tool before anything runs.
func checkToolName(name string, reg *tool.Registry) error {
	if name == "" {
		return errors.New("the tool name is missing")
	}
	if _, ok := reg.Lookup(name); !ok {
		return fmt.Errorf("there is no tool named %q; the tools are: %s (tether tools describes them)", name, strings.Join(reg.Names(), ", "))
	}
	return nil
}

// checkArguments insists on a JSON object; what goes in it is checked by
// the tool's schema when it runs.
func checkArguments(raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("is not valid JSON (%v)", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("must be a JSON object {...}, not %s", jsonKind(v))
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}
